//! PEP 723 inline script metadata: the `# /// script` block a Python file
//! may carry, naming the packages it needs (`dependencies`), read as the
//! specification reads it.

use toml_edit::{DocumentMut, Item, Value as TomlValue};

/// What a `# /// script` block asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptMetadata {
    /// PEP 508 requirements, in the block's order.
    pub dependencies: Vec<String>,
    /// The block's `requires-python`, when it has one (not enforced: the
    /// session's interpreter is the host's choice).
    pub requires_python: Option<String>,
}

/// The `script` block of `source`, if it has one; an error names what is
/// wrong with a block that is there (two `script` blocks, one never
/// closed, TOML that does not parse, `dependencies` not a list of strings).
pub fn script_metadata(source: &str) -> Result<Option<ScriptMetadata>, String> {
    let mut found: Option<String> = None;
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let Some(kind) = line.strip_prefix("# /// ") else {
            continue;
        };
        let kind = kind.trim_end();
        if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            continue;
        }
        // The block's content: lines `#` or `# ...` up to a closing `# ///`.
        let mut content = String::new();
        let mut closed = false;
        for line in lines.by_ref() {
            if line.trim_end() == "# ///" {
                closed = true;
                break;
            }
            match line
                .strip_prefix("# ")
                .or_else(|| (line == "#").then_some(""))
            {
                Some(text) => {
                    content.push_str(text);
                    content.push('\n');
                }
                None => break,
            }
        }
        if !closed {
            return Err(format!(
                "the `# /// {kind}` block is never closed with `# ///`"
            ));
        }
        if kind == "script" {
            if found.is_some() {
                return Err("there are two `# /// script` blocks".into());
            }
            found = Some(content);
        }
    }
    let Some(content) = found else {
        return Ok(None);
    };
    let document: DocumentMut = content
        .parse()
        .map_err(|err| format!("the `# /// script` block is not valid TOML: {err}"))?;
    let mut metadata = ScriptMetadata::default();
    match document.get("dependencies") {
        None => {}
        Some(Item::Value(TomlValue::Array(items))) => {
            for item in items.iter() {
                let Some(requirement) = item.as_str() else {
                    return Err(
                        "the script block's `dependencies` must be a list of strings".into(),
                    );
                };
                metadata.dependencies.push(requirement.to_owned());
            }
        }
        Some(_) => {
            return Err("the script block's `dependencies` must be a list of strings".into());
        }
    }
    metadata.requires_python = document
        .get("requires-python")
        .and_then(Item::as_str)
        .map(str::to_owned);
    Ok(Some(metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_block_gives_its_dependencies() {
        let source = "# /// script\n# requires-python = \">=3.11\"\n# dependencies = [\n#   \"pandas==3.1.1\",\n#   \"tabulate\",\n# ]\n# ///\nimport pandas\n";
        assert_eq!(
            script_metadata(source).unwrap(),
            Some(ScriptMetadata {
                dependencies: vec!["pandas==3.1.1".into(), "tabulate".into()],
                requires_python: Some(">=3.11".into()),
            })
        );
    }

    #[test]
    fn code_without_a_block_or_with_another_kind_has_no_metadata() {
        assert_eq!(script_metadata("import os\n# a comment\n").unwrap(), None);
        assert_eq!(
            script_metadata("# /// pyproject\n# x = 1\n# ///\n").unwrap(),
            None
        );
    }

    #[test]
    fn broken_blocks_are_errors_naming_the_problem() {
        let two = "# /// script\n# dependencies = []\n# ///\n# /// script\n# ///\n";
        assert!(script_metadata(two).unwrap_err().contains("two"));
        let open = "# /// script\n# dependencies = []\nimport x\n";
        assert!(script_metadata(open).unwrap_err().contains("never closed"));
        let bad = "# /// script\n# dependencies = [1]\n# ///\n";
        assert!(
            script_metadata(bad)
                .unwrap_err()
                .contains("list of strings")
        );
        let toml = "# /// script\n# dependencies = [\n# ///\n";
        assert!(
            script_metadata(toml)
                .unwrap_err()
                .contains("not valid TOML")
        );
    }
}
