//! Every test the documentation names exists.

use std::path::Path;

fn rust_sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && path.file_name().is_some_and(|n| n != "target") {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
}

#[test]
fn every_test_named_in_limits_md_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/limits.md")).unwrap();
    let mut sources = String::new();
    rust_sources(&root.join("crates"), &mut sources);
    // In the limits table, the last cell of each row names the tests.
    let limits_table = doc.split("## Errors").next().unwrap();
    let named: Vec<&str> = limits_table
        .lines()
        .filter(|line| line.starts_with('|'))
        .filter_map(|row| row.trim_end_matches('|').rsplit('|').next())
        .flat_map(|cell| cell.split('`').skip(1).step_by(2))
        .filter(|word| {
            word.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .collect();
    assert!(
        named.len() >= 25,
        "found only {} test names in docs/limits.md",
        named.len()
    );
    for name in named {
        assert!(
            sources.contains(&format!("fn {name}(")),
            "docs/limits.md names {name}, which is not a test"
        );
    }
}
