module {
  tt.func @f(%x: !tt.fancy<i32>) {
    tt.return
  }
}
