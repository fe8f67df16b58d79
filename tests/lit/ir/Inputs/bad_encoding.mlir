#x = #ttg.fancy_layout<{a = 1}>
module {
  tt.func @f(%x: tensor<4xf32, #x>) {
    tt.return
  }
}
