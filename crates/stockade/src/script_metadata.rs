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
/// wrong with a block that is there (two `script` blocks, TOML that does
/// not parse, `dependencies` not a list of strings). Blocks are found as
/// PEP 723's reference expression finds them: an opening line exactly
/// `# /// TYPE`, comment lines (`#` or `# ...`), and the last line exactly
/// `# ///` among them; an opening with no such line opens nothing.
pub fn script_metadata(source: &str) -> Result<Option<ScriptMetadata>, String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found: Option<String> = None;
    let mut at = 0;
    while at < lines.len() {
        let Some(kind) = block_type(lines[at]) else {
            at += 1;
            continue;
        };
        let run = lines[at + 1..]
            .iter()
            .take_while(|line| **line == "#" || line.starts_with("# "))
            .count();
        let Some(close) = (0..run).rev().find(|&i| lines[at + 1 + i] == "# ///") else {
            at += 1;
            continue;
        };
        if close == 0 {
            // The expression wants one content line at least.
            at += 1;
            continue;
        }
        if kind == "script" {
            if found.is_some() {
                return Err("there are two `# /// script` blocks".into());
            }
            let mut content = String::new();
            for line in &lines[at + 1..at + 1 + close] {
                content.push_str(line.strip_prefix("# ").unwrap_or(""));
                content.push('\n');
            }
            found = Some(content);
        }
        at += close + 2;
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

/// `TYPE` when `line` opens a block: exactly `# /// TYPE`.
fn block_type(line: &str) -> Option<&str> {
    let kind = line.strip_prefix("# /// ")?;
    (!kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .then_some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_block_gives_its_dependencies() -> Result<(), String> {
        let source = "# /// script\n# requires-python = \">=3.11\"\n# dependencies = [\n#   \"pandas==3.1.1\",\n#   \"tabulate\",\n# ]\n# ///\nimport pandas\n";
        assert_eq!(
            script_metadata(source)?,
            Some(ScriptMetadata {
                dependencies: vec!["pandas==3.1.1".into(), "tabulate".into()],
                requires_python: Some(">=3.11".into()),
            })
        );
        Ok(())
    }

    #[test]
    fn code_without_a_block_or_with_another_kind_has_no_metadata() -> Result<(), String> {
        assert_eq!(script_metadata("import os\n# a comment\n")?, None);
        assert_eq!(script_metadata("# /// pyproject\n# x = 1\n# ///\n")?, None);
        Ok(())
    }

    #[test]
    fn a_block_closes_at_the_last_closing_line_of_its_comments_as_the_reference_reads_it()
    -> Result<(), String> {
        let source =
            "# /// script\n# dependencies = [\"a\"]\n# ///\n# not = 'toml'\n# ///\nx = 1\n";
        // The content runs to the last `# ///`, so it holds a line that is
        // not TOML.
        assert!(
            script_metadata(source)
                .unwrap_err()
                .contains("not valid TOML")
        );
        // An opening nothing closes, or with trailing space, opens nothing.
        assert_eq!(script_metadata("# /// note\nimport x\n")?, None);
        assert_eq!(
            script_metadata("# /// script \n# dependencies = []\n# ///\n")?,
            None
        );
        Ok(())
    }

    #[test]
    fn broken_blocks_are_errors_naming_the_problem() {
        let two = "# /// script\n# dependencies = []\n# ///\nx = 1\n# /// script\n#\n# ///\n";
        assert!(script_metadata(two).unwrap_err().contains("two"));
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
