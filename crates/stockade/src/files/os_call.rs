//! An OsCall as the wire carries it (a name, positional and keyword
//! values) made into monty's `OsFunctionCall`, which the mount table
//! serves, and what it returns made into a wire value. Every engine names
//! its calls as monty does (`Path.read_text`, `open`, `os.getenv`, ...),
//! so one table serves them all.

use monty_types::{
    FileMode, GetenvArgs, MkdirCallArgs, MontyObject, MontyPath, OpenCallArgs, OsFunctionCall,
    PathBytesDataArgs, PathStringDataArgs, RenameCallArgs,
};
use stockade_wire::Value;

use super::relative::{Relative, beneath};

/// Why a call could not be read: the guest meets a TypeError saying so.
pub(crate) type Malformed = String;

/// The arguments of one call, taken by position or keyword.
struct Arguments<'a> {
    name: &'a str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    /// The guest's working directory, which relative paths are beneath.
    cwd: &'a str,
    /// The first relative path taken, as the guest wrote it and as resolved.
    relative: Option<Relative>,
}

/// A call read from the wire, with the relative path it named, if any.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub call: OsFunctionCall,
    pub relative: Option<Relative>,
}

impl Arguments<'_> {
    /// Argument `index`, or the keyword `keyword`.
    fn take(&mut self, index: usize, keyword: &str) -> Option<Value> {
        if let Some(at) = self.kwargs.iter().position(|(name, _)| name == keyword) {
            return Some(self.kwargs.remove(at).1);
        }
        self.args
            .get_mut(index)
            .map(|value| std::mem::replace(value, Value::None))
    }

    fn path(&mut self, index: usize, keyword: &str) -> Result<MontyPath, Malformed> {
        match self.take(index, keyword) {
            Some(Value::Str(path)) if path.starts_with('/') => Ok(MontyPath::new(path)),
            Some(Value::Str(path)) => {
                let resolved = beneath(self.cwd, &path);
                if self.relative.is_none() {
                    self.relative = Some(Relative {
                        given: path,
                        resolved: resolved.clone(),
                    });
                }
                Ok(MontyPath::new(resolved))
            }
            Some(other) => Err(format!(
                "{}: {keyword} must be a path string, not {}",
                self.name,
                other.kind()
            )),
            None => Err(format!("{}: missing {keyword}", self.name)),
        }
    }

    fn text(&mut self, index: usize, keyword: &str) -> Result<String, Malformed> {
        match self.take(index, keyword) {
            Some(Value::Str(text)) => Ok(text),
            Some(other) => Err(format!(
                "{}: {keyword} must be str, not {}",
                self.name,
                other.kind()
            )),
            None => Err(format!("{}: missing {keyword}", self.name)),
        }
    }

    fn bytes(&mut self, index: usize, keyword: &str) -> Result<Vec<u8>, Malformed> {
        match self.take(index, keyword) {
            Some(Value::Bytes(bytes)) => Ok(bytes),
            Some(other) => Err(format!(
                "{}: {keyword} must be bytes, not {}",
                self.name,
                other.kind()
            )),
            None => Err(format!("{}: missing {keyword}", self.name)),
        }
    }

    fn flag(&mut self, index: usize, keyword: &str) -> Result<bool, Malformed> {
        match self.take(index, keyword) {
            Some(Value::Bool(flag)) => Ok(flag),
            None | Some(Value::None) => Ok(false),
            Some(other) => Err(format!(
                "{}: {keyword} must be a bool, not {}",
                self.name,
                other.kind()
            )),
        }
    }
}

/// The call `name` names, with its arguments, relative paths made
/// absolute beneath `cwd`; Err for a name no engine sends or arguments of
/// the wrong shape.
pub(crate) fn decode(
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    cwd: &str,
) -> Result<Decoded, Malformed> {
    let mut a = Arguments {
        name,
        args,
        kwargs,
        cwd,
        relative: None,
    };
    let call = call(name, &mut a)?;
    Ok(Decoded {
        call,
        relative: a.relative,
    })
}

fn call(name: &str, a: &mut Arguments<'_>) -> Result<OsFunctionCall, Malformed> {
    let path_data_text = |a: &mut Arguments<'_>| -> Result<PathStringDataArgs, Malformed> {
        Ok(PathStringDataArgs {
            path: a.path(0, "path")?,
            data: a.text(1, "data")?,
        })
    };
    let path_data_bytes = |a: &mut Arguments<'_>| -> Result<PathBytesDataArgs, Malformed> {
        Ok(PathBytesDataArgs {
            path: a.path(0, "path")?,
            data: a.bytes(1, "data")?,
        })
    };
    Ok(match name {
        "Path.exists" => OsFunctionCall::Exists(a.path(0, "path")?),
        "Path.is_file" => OsFunctionCall::IsFile(a.path(0, "path")?),
        "Path.is_dir" => OsFunctionCall::IsDir(a.path(0, "path")?),
        "Path.is_symlink" => OsFunctionCall::IsSymlink(a.path(0, "path")?),
        "Path.read_text" => OsFunctionCall::ReadText(a.path(0, "path")?),
        "Path.read_bytes" => OsFunctionCall::ReadBytes(a.path(0, "path")?),
        "Path.stat" => OsFunctionCall::Stat(a.path(0, "path")?),
        "Path.iterdir" => OsFunctionCall::Iterdir(a.path(0, "path")?),
        "Path.resolve" => OsFunctionCall::Resolve(a.path(0, "path")?),
        "Path.absolute" => OsFunctionCall::Absolute(a.path(0, "path")?),
        "Path.write_text" => OsFunctionCall::WriteText(path_data_text(a)?),
        "Path.append_text" => OsFunctionCall::AppendText(path_data_text(a)?),
        "Path.write_bytes" => OsFunctionCall::WriteBytes(path_data_bytes(a)?),
        "Path.append_bytes" => OsFunctionCall::AppendBytes(path_data_bytes(a)?),
        "open" => {
            let path = a.path(0, "path")?;
            let mode = a.text(1, "mode")?;
            let mode = mode
                .parse::<FileMode>()
                .map_err(|err| format!("open: {err}"))?;
            OsFunctionCall::Open(OpenCallArgs { path, mode })
        }
        "Path.mkdir" => OsFunctionCall::Mkdir(MkdirCallArgs {
            path: a.path(0, "path")?,
            parents: a.flag(1, "parents")?,
            exist_ok: a.flag(2, "exist_ok")?,
        }),
        "Path.unlink" => OsFunctionCall::Unlink(a.path(0, "path")?),
        "Path.rmdir" => OsFunctionCall::Rmdir(a.path(0, "path")?),
        "Path.rename" => OsFunctionCall::Rename(RenameCallArgs {
            src: a.path(0, "src")?,
            dst: a.path(1, "dst")?,
        }),
        "os.getenv" => OsFunctionCall::Getenv(GetenvArgs {
            key: a.text(0, "key")?,
            default: MontyObject::None,
        }),
        "os.environ" => OsFunctionCall::GetEnviron,
        "date.today" => OsFunctionCall::DateToday,
        "datetime.now" => OsFunctionCall::DateTimeNow(None),
        other => return Err(format!("{other:?} is not an OS call this host knows")),
    })
}

/// A call's result as a wire value: paths as strings, named tuples (a
/// `stat` result) as tuples, an opened file as `(path, mode, position)`.
/// Err for a value no mount returns.
pub(crate) fn encode(object: MontyObject) -> Result<Value, String> {
    Ok(match object {
        MontyObject::None => Value::None,
        MontyObject::Bool(flag) => Value::Bool(flag),
        MontyObject::Int(n) => Value::Int(n),
        MontyObject::Float(x) => Value::Float(x),
        MontyObject::String(text) | MontyObject::Path(text) => Value::Str(text),
        MontyObject::Bytes(bytes) => Value::Bytes(bytes),
        MontyObject::List(items) => Value::List(encode_all(items)?),
        MontyObject::Tuple(items) | MontyObject::NamedTuple { values: items, .. } => {
            Value::Tuple(encode_all(items)?)
        }
        MontyObject::FileHandle(handle) => Value::Tuple(vec![
            Value::Str(handle.path),
            Value::Str(handle.mode.as_str().to_owned()),
            Value::Int(i64::try_from(handle.position).unwrap_or(i64::MAX)),
        ]),
        other => return Err(format!("an OS call returned {other:?}, which cannot cross")),
    })
}

fn encode_all(items: Vec<MontyObject>) -> Result<Vec<Value>, String> {
    items.into_iter().map(encode).collect()
}
