module {
  tt.func @f(%p: !tt.ptr<i64>) {
    tt.get_program_id w : i32
    tt.return
  }
}
