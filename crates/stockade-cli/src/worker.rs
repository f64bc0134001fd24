//! `stockade-worker`, the worker binary for monty and QuickJS (the code is
//! the stockade-worker crate). It is built in this package so that `cargo
//! install` of the CLI puts it beside `stockade`, where the CLI finds it.

#[global_allocator]
static ALLOCATOR: stockade_worker::CappedAllocator = stockade_worker::allocator();

fn main() {
    std::process::exit(stockade_worker::main(&ALLOCATOR));
}
