// rust_chain: main -> outer -> middle -> leaf, built `rustc -O` (its default
// linker, lld, and no frame pointers): only the CFI unwinds it.
// Usage: rust_chain [seconds=2]
use std::hint::black_box;

#[inline(never)]
fn leaf(n: u64) -> u64 {
    let mut x = n;
    for i in 0..2000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    x
}

#[inline(never)]
fn middle(n: u64) -> u64 {
    let mut s = 0;
    for i in 0..50 {
        s ^= leaf(black_box(n + i));
    }
    s
}

#[inline(never)]
fn outer(n: u64) -> u64 {
    let mut s = 0;
    for i in 0..10 {
        s ^= middle(black_box(n + i));
    }
    s
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2.0);
    let t = std::time::Instant::now();
    let mut s = 0u64;
    while t.elapsed().as_secs_f64() < secs {
        s ^= outer(black_box(s));
    }
    println!("{}", s);
}
