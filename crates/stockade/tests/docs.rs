//! Every test the documentation names exists (Rust `fn` or pytest `def`).

use std::path::Path;

fn rust_sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir()
            && path
                .file_name()
                .is_some_and(|n| n != "target" && n != "node_modules" && n != "__pycache__")
        {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "py") {
            out.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// Test names in the last cell of the table rows of `section`.
fn named_tests(section: &str) -> Vec<&str> {
    section
        .lines()
        .filter(|line| line.starts_with('|'))
        .filter_map(|row| row.trim_end_matches('|').rsplit('|').next())
        .flat_map(|cell| cell.split('`').skip(1).step_by(2))
        .filter(|word| {
            word.contains('_')
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .collect()
}

/// `docs/doc_name`, and every Rust and Python source under `crates/`.
fn doc_and_sources(doc_name: &str) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs").join(doc_name)).unwrap();
    let mut sources = String::new();
    rust_sources(&root.join("crates"), &mut sources);
    (doc, sources)
}

fn check(doc_name: &str, section: impl Fn(&str) -> &str, at_least: usize) {
    let (doc, sources) = doc_and_sources(doc_name);
    assert_tests_exist(doc_name, &named_tests(section(&doc)), at_least, &sources);
}

/// At least `at_least` names, each a Rust `fn` or a pytest `def`.
fn assert_tests_exist(doc_name: &str, named: &[&str], at_least: usize, sources: &str) {
    assert!(
        named.len() >= at_least,
        "found only {} test names in {doc_name}",
        named.len()
    );
    for name in named {
        assert!(
            sources.contains(&format!("fn {name}(")) || sources.contains(&format!("def {name}(")),
            "docs/{doc_name} names {name}, which is not a test"
        );
    }
}

#[test]
fn every_test_named_in_limits_md_exists() {
    // The limits table comes before the errors table.
    check(
        "limits.md",
        |doc| doc.split("## Errors").next().unwrap_or(doc),
        35,
    );
}

#[test]
fn every_test_named_in_security_md_exists() {
    // The layers table: its last column names the tests.
    check(
        "security.md",
        |doc| doc.split("### The seccomp policy").next().unwrap_or(doc),
        12,
    );
}

#[test]
fn every_test_named_in_the_host_under_attack_exists() {
    // One test (or more) for each class of attack on the host.
    check(
        "security.md",
        |doc| {
            doc.split("## The host under attack")
                .nth(1)
                .and_then(|rest| rest.split("\n## ").next())
                .unwrap_or("")
        },
        20,
    );
}

#[test]
fn every_test_named_in_compatibility_md_exists() {
    // Test names sit in the prose as well as the tables.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/compatibility.md")).unwrap();
    let mut sources = String::new();
    rust_sources(&root.join("crates"), &mut sources);
    let named: Vec<&str> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|word| {
            word.matches('_').count() >= 3
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .collect();
    assert!(named.len() >= 10, "found only {} test names", named.len());
    for name in named {
        assert!(
            sources.contains(&format!("fn {name}(")) || sources.contains(&format!("def {name}(")),
            "docs/compatibility.md names {name}, which is not a test"
        );
    }
}

/// Whether `path` names a file of the tree: from the root, from `crates/`,
/// or inside some crate's `src/`.
fn names_a_file(root: &Path, path: &str) -> bool {
    if root.join(path).exists() || root.join("crates").join(path).exists() {
        return true;
    }
    std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .any(|krate| krate.path().join("src").join(path).exists())
}

#[test]
fn every_file_named_in_architecture_md_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let paths: Vec<&str> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|word| word.split("::").next().unwrap_or(word))
        .filter(|word| {
            word.contains('/')
                && [".rs", ".py", ".md", "/"]
                    .iter()
                    .any(|end| word.ends_with(end))
        })
        .collect();
    assert!(paths.len() >= 30, "found only {} paths", paths.len());
    for path in paths {
        assert!(
            names_a_file(&root, path),
            "docs/architecture.md names {path}, which is not in the tree"
        );
    }
}

#[test]
fn every_test_named_in_node_md_exists() {
    // Node tests are named by their titles, quoted inside backticks (a
    // quoted word with no spaces is an option's value); a title may wrap
    // across lines.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/node.md")).unwrap();
    let tests = root.join("crates/stockade-node/test");
    let mut sources = String::new();
    for entry in std::fs::read_dir(&tests).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "mjs") {
            sources.push_str(&std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    let titles: Vec<String> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.len() > 2 && span.starts_with('"') && span.ends_with('"'))
        .filter(|span| span.split_whitespace().count() >= 3)
        .map(|span| span.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        titles.len() >= 30,
        "found only {} test titles",
        titles.len()
    );
    for title in titles {
        assert!(
            sources.contains(&format!("test({title}")),
            "docs/node.md names {title}, which is not a test in {}",
            tests.display()
        );
    }
}

/// Every `test_...` name in backticks anywhere in `doc_name` (prose, not
/// a table) is a pytest test.
fn check_pytest_names_in_prose(doc_name: &str, at_least: usize) {
    let (doc, sources) = doc_and_sources(doc_name);
    let named: Vec<&str> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|word| word.starts_with("test_") && !word.contains(' '))
        .collect();
    assert_tests_exist(doc_name, &named, at_least, &sources);
}

#[test]
fn every_test_named_in_install_md_exists() {
    // The rest of its checks are scripts/test-dist's, which it names step
    // by step.
    check_pytest_names_in_prose("install.md", 2);
}

#[test]
fn every_test_named_in_integrations_md_exists() {
    check_pytest_names_in_prose("integrations.md", 12);
}

/// Every test docs/data.md names after "Test:" or "Tests:" exists: a Rust
/// `fn` or pytest `def` for a snake_case name, a Node test's title for one
/// with spaces.
#[test]
fn every_test_named_in_data_md_exists() {
    let (doc, sources) = doc_and_sources("data.md");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut node_tests = String::new();
    for entry in std::fs::read_dir(root.join("crates/stockade-node/test"))
        .unwrap()
        .flatten()
    {
        node_tests.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
    }
    let mut named = Vec::new();
    for (at, _) in doc.match_indices("Test") {
        let rest = &doc[at..];
        let Some(listed) = rest
            .strip_prefix("Tests:")
            .or_else(|| rest.strip_prefix("Test:"))
        else {
            continue;
        };
        // A list ends with its sentence, bullet or paragraph, or where a
        // remark in parentheses follows it.
        let end = [
            listed.find(". "),
            listed.find(".\n"),
            listed.find("\n- "),
            listed.find("\n\n"),
            listed.find("\n("),
            listed.find(" ("),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(listed.len());
        named.extend(listed[..end].split('`').skip(1).step_by(2));
    }
    assert!(
        named.len() >= 20,
        "found only {} test names in data.md",
        named.len()
    );
    for name in named {
        let name = name.replace('\n', " ");
        if name.contains(' ') {
            assert!(
                node_tests.contains(&format!("test(\"{name}\"")),
                "docs/data.md names {name:?}, which is not a Node test"
            );
        } else {
            assert!(
                sources.contains(&format!("fn {name}("))
                    || sources.contains(&format!("def {name}(")),
                "docs/data.md names {name}, which is not a test"
            );
        }
    }
}

/// The error table of docs/limits.md has a row for every kind, with its
/// class name (the one the bindings raise and `error_type` reports), what
/// becomes of the session and the CLI's exit status, as the contract
/// (`contract/errors.rs`) gives them.
#[test]
fn every_error_kind_is_in_the_error_table_by_its_class() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/limits.md"))
        .unwrap();
    let table = doc.split("## Errors").nth(1).unwrap();
    for kind in stockade::ErrorKind::ALL {
        let spec = kind.spec();
        let variant = format!("{kind:?}");
        let row = table
            .lines()
            .find(|row| {
                row.starts_with(&format!("| `{variant}"))
                    && row.contains(&format!("| `{}` |", spec.class))
            })
            .unwrap_or_else(|| {
                panic!(
                    "docs/limits.md's error table has no row for {variant} with class {}",
                    spec.class
                )
            });
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells[3], spec.session, "{variant}: the session column");
        assert!(
            cells[4].starts_with(&spec.exit_status.to_string()),
            "{variant}: the CLI exits {}, not {:?}",
            spec.exit_status,
            cells[4]
        );
    }
}
