#s = #ttg.padded_shared<[32:4] {order = [0]}>
module {
  tt.func @f(%x: !ttg.memdesc<4xf32, #s, #ttg.shared_memory>) {
    tt.return
  }
}
