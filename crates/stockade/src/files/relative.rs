//! The guest's working directory for engines whose paths the host
//! resolves (monty, QuickJS): a relative path made absolute beneath it,
//! and an answer about one named back as the guest named it.

use monty_types::MontyObject;

/// A path the guest gave relative to its working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Relative {
    pub given: String,
    pub resolved: String,
}

impl Relative {
    /// A result for the path: an opened file keeps the guest's name, and a
    /// listing's entries are beneath the path the guest gave, as Python's
    /// `Path("sub").iterdir()` gives `sub/a`.
    pub(crate) fn named_as_given(&self, object: MontyObject, lists: bool) -> MontyObject {
        named_as_given(object, self, lists)
    }

    /// An error's message naming the path as the guest gave it.
    pub(crate) fn in_message(&self, message: &str) -> String {
        message.replace(&quoted(&self.resolved), &quoted(&self.given))
    }
}

/// `path` beneath `cwd` when it is relative, normalised (`.` and `..`
/// taken out as the guest's own namespace would: lexically).
pub(crate) fn beneath(cwd: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in cwd.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

fn named_as_given(object: MontyObject, relative: &Relative, lists: bool) -> MontyObject {
    match object {
        MontyObject::FileHandle(mut handle) => {
            handle.path.clone_from(&relative.given);
            MontyObject::FileHandle(handle)
        }
        MontyObject::List(items) if lists => {
            let base: Vec<&str> = relative
                .given
                .split('/')
                .filter(|part| !part.is_empty() && *part != ".")
                .collect();
            let base = base.join("/");
            MontyObject::List(
                items
                    .into_iter()
                    .map(|item| match item {
                        MontyObject::Path(path) => {
                            let name = path.rsplit('/').next().unwrap_or_default();
                            MontyObject::Path(if base.is_empty() {
                                name.to_owned()
                            } else {
                                format!("{base}/{name}")
                            })
                        }
                        other => other,
                    })
                    .collect(),
            )
        }
        other => other,
    }
}

/// A path as Python's `repr` shows a plain one.
pub(crate) fn quoted(path: &str) -> String {
    format!("'{path}'")
}
