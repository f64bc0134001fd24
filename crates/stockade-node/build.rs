//! Links the addon as Node expects (its symbols come from the node binary).
fn main() {
    napi_build::setup();
}
