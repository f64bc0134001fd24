//! What a sealed dump carries inside its envelope: the session's engine
//! state (an image the worker made), the guest time it used, the names the
//! guest may call, for a suspended session where it waits, and what a
//! monty or QuickJS session's scratch directory holds. Written
//! and read here only; the envelope (`stockade-dump`) authenticates it, and
//! reading still checks every length and value.

use stockade_wire::{Value, WireLimits, decode_value, encode_value};

use crate::files::ScratchEntry;
use crate::host::Args;
use crate::session::Pause;
use crate::session::journal::{Entry, EntryKind};

/// The body layout this build writes (inside envelope format 1); it reads
/// this one and the one before, which had no scratch.
const BODY_VERSION: u8 = 2;
const BODY_WITHOUT_SCRATCH: u8 = 1;

/// Where a suspended session waits, as the dump records it.
#[derive(Debug)]
pub(crate) struct Suspension {
    /// The cursor's number, which the restored session keeps.
    pub cursor: u64,
    /// Host calls and lookups the feed had made (its `max_host_calls` count).
    pub calls: u32,
    /// Calls the host had deferred as futures.
    pub deferred: Vec<u32>,
    pub pause: Pause,
}

/// The dump's body.
#[derive(Debug)]
pub(crate) struct Body {
    /// Guest time used, which counts against the restored `max_duration`.
    pub elapsed_us: u64,
    /// Cursors handed out so far.
    pub cursors: u64,
    /// Names the guest may hold as host functions.
    pub listed: Vec<String>,
    /// The engine's own serialisation of the session (monty), or empty.
    pub image: Vec<u8>,
    /// The journal a replay follows (QuickJS, CPython), and the seed its
    /// randomness was started with; `None` for an image.
    pub journal: Option<(u64, Vec<Entry>)>,
    pub suspension: Option<Suspension>,
    /// What the host kept of the guest's scratch directory (monty, QuickJS;
    /// a CPython replay writes its own again).
    pub scratch: Vec<ScratchEntry>,
}

const SCRATCH_DIR_ENTRY: u8 = 1;
const SCRATCH_FILE_ENTRY: u8 = 2;

/// Writes fields in order, little-endian, lengths as u32.
#[derive(Default)]
struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) -> Result<(), String> {
        self.u32(u32::try_from(b.len()).map_err(|_| "a field over 4 GiB".to_owned())?);
        self.0.extend_from_slice(b);
        Ok(())
    }
    fn str(&mut self, s: &str) -> Result<(), String> {
        self.bytes(s.as_bytes())
    }
    fn value(&mut self, v: &Value) -> Result<(), String> {
        let encoded = encode_value(v, &WireLimits::default()).map_err(|e| e.to_string())?;
        self.bytes(&encoded)
    }
    fn u32s(&mut self, ids: &[u32]) -> Result<(), String> {
        self.u32(u32::try_from(ids.len()).map_err(|_| "too many ids".to_owned())?);
        for id in ids {
            self.u32(*id);
        }
        Ok(())
    }
}

/// Reads what `Out` wrote; every shortfall is an error, never a panic.
struct In<'a> {
    bytes: &'a [u8],
}

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.bytes.len() {
            return Err("the body ends early".into());
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(taken)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        let mut word = [0u8; 4];
        word.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(word))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(word))
    }
    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = self.u32()? as usize;
        self.take(len)
    }
    fn str(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| "a name is not UTF-8".into())
    }
    fn value(&mut self) -> Result<Value, String> {
        decode_value(self.bytes()?, &WireLimits::default()).map_err(|e| e.to_string())
    }
    fn u32s(&mut self) -> Result<Vec<u32>, String> {
        let count = self.u32()? as usize;
        if count > self.bytes.len() / 4 {
            return Err("a list longer than the body".into());
        }
        (0..count).map(|_| self.u32()).collect()
    }
}

const PAUSE_CALL: u8 = 1;
const PAUSE_LOOKUP: u8 = 2;
const PAUSE_AWAIT: u8 = 3;

impl Body {
    pub(crate) fn write(&self) -> Result<Vec<u8>, String> {
        let mut out = Out::default();
        out.u8(BODY_VERSION);
        out.u64(self.elapsed_us);
        out.u64(self.cursors);
        out.u32(u32::try_from(self.listed.len()).map_err(|_| "too many names".to_owned())?);
        for name in &self.listed {
            out.str(name)?;
        }
        out.bytes(&self.image)?;
        match &self.journal {
            None => out.u8(0),
            Some((seed, entries)) => {
                out.u8(1);
                out.u64(*seed);
                out.u32(u32::try_from(entries.len()).map_err(|_| "too many entries".to_owned())?);
                for entry in entries {
                    out.u8(entry.kind as u8);
                    out.bytes(&entry.frame)?;
                }
            }
        }
        match &self.suspension {
            None => out.u8(0),
            Some(suspension) => {
                out.u8(1);
                out.u64(suspension.cursor);
                out.u32(suspension.calls);
                out.u32s(&suspension.deferred)?;
                match &suspension.pause {
                    Pause::Call {
                        call_id,
                        name,
                        args,
                    } => {
                        out.u8(PAUSE_CALL);
                        out.u32(*call_id);
                        out.str(name)?;
                        out.value(&Value::List(args.positional.clone()))?;
                        let keyword = args
                            .keyword
                            .iter()
                            .map(|(k, v)| Value::Tuple(vec![Value::Str(k.clone()), v.clone()]))
                            .collect();
                        out.value(&Value::List(keyword))?;
                    }
                    Pause::Lookup { name } => {
                        out.u8(PAUSE_LOOKUP);
                        out.str(name)?;
                    }
                    Pause::Await { call_ids } => {
                        out.u8(PAUSE_AWAIT);
                        out.u32s(call_ids)?;
                    }
                }
            }
        }
        out.u32(u32::try_from(self.scratch.len()).map_err(|_| "too many files".to_owned())?);
        for entry in &self.scratch {
            match entry {
                ScratchEntry::Dir(path) => {
                    out.u8(SCRATCH_DIR_ENTRY);
                    out.str(path)?;
                }
                ScratchEntry::File(path, bytes) => {
                    out.u8(SCRATCH_FILE_ENTRY);
                    out.str(path)?;
                    out.bytes(bytes)?;
                }
            }
        }
        Ok(out.0)
    }

    pub(crate) fn read(bytes: &[u8]) -> Result<Self, String> {
        let mut r = In { bytes };
        let version = r.u8()?;
        if version != BODY_VERSION && version != BODY_WITHOUT_SCRATCH {
            return Err(format!(
                "body layout {version}, this build reads {BODY_VERSION}"
            ));
        }
        let elapsed_us = r.u64()?;
        let cursors = r.u64()?;
        let count = r.u32()? as usize;
        if count > r.bytes.len() / 4 {
            return Err("more names than the body holds".into());
        }
        let listed = (0..count).map(|_| r.str()).collect::<Result<_, _>>()?;
        let image = r.bytes()?.to_vec();
        let journal = match r.u8()? {
            0 => None,
            1 => {
                let seed = r.u64()?;
                let count = r.u32()? as usize;
                if count > r.bytes.len() / 5 {
                    return Err("more journal entries than the body holds".into());
                }
                let mut entries = Vec::with_capacity(count);
                for _ in 0..count {
                    let kind = EntryKind::from_byte(r.u8()?)
                        .ok_or_else(|| "an unknown journal entry".to_owned())?;
                    entries.push(Entry {
                        kind,
                        frame: r.bytes()?.to_vec(),
                    });
                }
                Some((seed, entries))
            }
            other => return Err(format!("unknown journal marker {other}")),
        };
        let suspension = match r.u8()? {
            0 => None,
            1 => {
                let cursor = r.u64()?;
                let calls = r.u32()?;
                let deferred = r.u32s()?;
                let pause = match r.u8()? {
                    PAUSE_CALL => {
                        let call_id = r.u32()?;
                        let name = r.str()?;
                        let Value::List(positional) = r.value()? else {
                            return Err("a call's arguments are not a list".into());
                        };
                        let Value::List(pairs) = r.value()? else {
                            return Err("a call's keyword arguments are not a list".into());
                        };
                        let mut keyword = Vec::with_capacity(pairs.len());
                        for pair in pairs {
                            match pair {
                                Value::Tuple(mut kv) if kv.len() == 2 => {
                                    let value = kv.pop();
                                    let key = kv.pop();
                                    match (key, value) {
                                        (Some(Value::Str(k)), Some(v)) => keyword.push((k, v)),
                                        _ => return Err("a keyword argument is malformed".into()),
                                    }
                                }
                                _ => return Err("a keyword argument is malformed".into()),
                            }
                        }
                        Pause::Call {
                            call_id,
                            name,
                            args: Args {
                                positional,
                                keyword,
                            },
                        }
                    }
                    PAUSE_LOOKUP => Pause::Lookup { name: r.str()? },
                    PAUSE_AWAIT => Pause::Await {
                        call_ids: r.u32s()?,
                    },
                    other => return Err(format!("unknown pause {other}")),
                };
                Some(Suspension {
                    cursor,
                    calls,
                    deferred,
                    pause,
                })
            }
            other => return Err(format!("unknown session state {other}")),
        };
        let mut scratch = Vec::new();
        if version != BODY_WITHOUT_SCRATCH {
            let count = r.u32()? as usize;
            if count > r.bytes.len() / 5 {
                return Err("more scratch entries than the body holds".into());
            }
            for _ in 0..count {
                scratch.push(match r.u8()? {
                    SCRATCH_DIR_ENTRY => ScratchEntry::Dir(r.str()?),
                    SCRATCH_FILE_ENTRY => ScratchEntry::File(r.str()?, r.bytes()?.to_vec()),
                    other => return Err(format!("unknown scratch entry {other}")),
                });
            }
        }
        if !r.bytes.is_empty() {
            return Err(format!("{} trailing bytes", r.bytes.len()));
        }
        Ok(Body {
            elapsed_us,
            cursors,
            listed,
            image,
            journal,
            suspension,
            scratch,
        })
    }
}
