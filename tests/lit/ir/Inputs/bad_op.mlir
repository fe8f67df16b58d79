module {
  tt.func @f(%i: i32) {
    ttng.fancy_op %i : i32
    tt.return
  }
}
