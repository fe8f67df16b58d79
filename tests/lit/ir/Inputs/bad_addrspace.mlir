module {
  tt.func @f(%i: i32) {
    ttg.barrier local|shared
    tt.return
  }
}
