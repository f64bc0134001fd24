//! Conversions between wire values and QuickJS values.

use num_bigint::BigInt;
use rquickjs::{
    Array, ArrayBuffer, Ctx, Function, JsLifetime, Object, Type, Value as JsValue, qjs,
};
use stockade_wire::{DateTime, GuestException, Value};

/// Deepest JavaScript value converted; past it a value crosses as a repr,
/// and the wire refuses anything past 64 anyway.
const MAX_DEPTH: usize = 100;
/// Most proxies one value may sit behind.
const MAX_PROXY_DEPTH: usize = 64;

/// Why a guest value cannot cross.
#[derive(Debug)]
pub struct Refused(pub String);

/// Converts a guest value for the wire. A Proxy crosses as its innermost
/// target, found natively, without running any trap; a revoked one, or one
/// behind more than 64 others, is refused.
///
/// Getters, `toString` and iterators the guest defined do run, as guest
/// code, so the caller keeps the guest clock running; `stop` is asked
/// before each value, and once it says the guest must stop (out of time,
/// say) the conversion ends at once, refused, rather than calling one
/// interrupted getter after another.
pub fn to_wire<'js>(
    ctx: &Ctx<'js>,
    value: &JsValue<'js>,
    stop: &dyn Fn() -> bool,
) -> Result<Value, Refused> {
    let mut ancestors = Vec::new();
    convert_out(ctx, value, &mut ancestors, stop)
}

/// A guest value for a message (an error, a diagnostic): what cannot cross
/// is shown by its text.
pub fn show<'js>(ctx: &Ctx<'js>, value: &JsValue<'js>, stop: &dyn Fn() -> bool) -> String {
    match to_wire(ctx, value, stop) {
        Ok(value) => value.to_string(),
        Err(Refused(why)) => format!("<{why}>"),
    }
}

/// The object behind a chain of proxies, read natively: no trap runs.
fn innermost<'js>(proxy: &rquickjs::Proxy<'js>) -> Result<JsValue<'js>, Refused> {
    let mut current = proxy.clone();
    for _ in 0..MAX_PROXY_DEPTH {
        let target = current
            .target()
            .map_err(|_| Refused("a revoked Proxy cannot cross".into()))?
            .into_value();
        match target.clone().into_proxy() {
            Some(inner) => current = inner,
            None => return Ok(target),
        }
    }
    Err(Refused(format!(
        "a Proxy nested more than {MAX_PROXY_DEPTH} deep cannot cross"
    )))
}

/// The console's loader of Node's util.inspect, kept with the context
/// (as its userdata), so that a value shown as text reads as `console.log`
/// shows it.
pub struct Inspector<'js>(pub Function<'js>);

// SAFETY: `Inspector` holds nothing but a `Function<'js>`, so changing its
// lifetime is changing the function's, which rquickjs declares the same way.
unsafe impl<'js> JsLifetime<'js> for Inspector<'js> {
    type Changed<'to> = Inspector<'to>;
}

/// `value` as Node's `util.inspect` shows it, if the inspector is there
/// and does not fail (it runs the guest's own inspect hooks and getters).
pub fn inspected<'js>(ctx: &Ctx<'js>, value: &JsValue<'js>) -> Option<String> {
    let loader = ctx.userdata::<Inspector>()?.0.clone();
    let text = loader
        .call::<_, Object>(())
        .and_then(|util| util.get::<_, Function>("inspect"))
        .and_then(|inspect| inspect.call::<_, String>((value.clone(),)));
    match text {
        Ok(text) => Some(text),
        Err(_) => {
            let _ = ctx.catch();
            None
        }
    }
}

fn repr<'js>(ctx: &Ctx<'js>, value: &JsValue<'js>) -> Value {
    let text = inspected(ctx, value).unwrap_or_else(|| {
        ctx.globals()
            .get::<_, Function>("String")
            .and_then(|string| string.call::<_, String>((value.clone(),)))
            .unwrap_or_else(|_| format!("<{}>", value.type_name()))
    });
    Value::Repr(text)
}

fn class_name<'js>(object: &Object<'js>) -> Option<String> {
    let constructor: Object = object.get("constructor").ok()?;
    constructor.get::<_, String>("name").ok()
}

fn convert_out<'js>(
    ctx: &Ctx<'js>,
    value: &JsValue<'js>,
    ancestors: &mut Vec<Object<'js>>,
    stop: &dyn Fn() -> bool,
) -> Result<Value, Refused> {
    if stop() {
        return Err(Refused(
            "the guest had to stop while its value was converted".into(),
        ));
    }
    if let Some(proxy) = value.as_proxy() {
        let target = innermost(proxy)?;
        return convert_out(ctx, &target, ancestors, stop);
    }
    Ok(match value.type_of() {
        Type::Uninitialized | Type::Undefined => Value::Undefined,
        Type::Null => Value::None,
        Type::Bool => Value::Bool(value.as_bool().unwrap_or(false)),
        Type::Int => Value::Int(i64::from(value.as_int().unwrap_or(0))),
        Type::Float => {
            let x = value.as_float().unwrap_or(f64::NAN);
            // Whole numbers that fit an i64 exactly cross as ints, as JSON would.
            if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
                Value::Int(x as i64)
            } else {
                Value::Float(x)
            }
        }
        Type::String => Value::Str(
            value
                .as_string()
                .and_then(|s| s.to_string().ok())
                .unwrap_or_default(),
        ),
        Type::BigInt => {
            let text: Option<String> = ctx
                .globals()
                .get::<_, Function>("String")
                .and_then(|string| string.call::<_, String>((value.clone(),)))
                .ok();
            match text.and_then(|t| t.parse::<BigInt>().ok()) {
                Some(big) => Value::from(big),
                None => repr(ctx, value),
            }
        }
        Type::Array | Type::Object | Type::Exception => {
            let Some(object) = value.as_object() else {
                return Ok(repr(ctx, value));
            };
            if ancestors.len() >= MAX_DEPTH {
                return Ok(repr(ctx, value));
            }
            if ancestors.iter().any(|a| a == object) {
                let placeholder = if value.is_array() { "[...]" } else { "{...}" };
                return Ok(Value::Cycle(placeholder.into()));
            }
            ancestors.push(object.clone());
            let converted = convert_object(ctx, value, object, ancestors, stop);
            ancestors.pop();
            converted?
        }
        _ => repr(ctx, value),
    })
}

fn convert_object<'js>(
    ctx: &Ctx<'js>,
    value: &JsValue<'js>,
    object: &Object<'js>,
    ancestors: &mut Vec<Object<'js>>,
    stop: &dyn Fn() -> bool,
) -> Result<Value, Refused> {
    if let Some(array) = value.as_array() {
        let mut items = Vec::with_capacity(array.len().min(1 << 16));
        for item in array.iter::<JsValue>() {
            items.push(match item {
                Ok(item) => convert_out(ctx, &item, ancestors, stop)?,
                Err(_) => Value::Undefined,
            });
        }
        return Ok(Value::List(items));
    }
    match class_name(object).as_deref() {
        Some("Map") => {
            let mut pairs = Vec::new();
            for entry in entries(ctx, value, "entries") {
                pairs.push(match convert_out(ctx, &entry, ancestors, stop)? {
                    Value::List(mut pair) if pair.len() == 2 => {
                        let item = pair.pop().unwrap_or(Value::Undefined);
                        let key = pair.pop().unwrap_or(Value::Undefined);
                        (hashable(key), item)
                    }
                    other => (Value::Str(other.to_string()), Value::Undefined),
                });
            }
            return Ok(Value::Dict(pairs));
        }
        Some("Set") => {
            let mut members = Vec::new();
            for member in entries(ctx, value, "values") {
                members.push(hashable(convert_out(ctx, &member, ancestors, stop)?));
            }
            return Ok(Value::Set(members));
        }
        Some(
            "ArrayBuffer" | "Uint8Array" | "Uint8ClampedArray" | "Int8Array" | "Uint16Array"
            | "Int16Array" | "Uint32Array" | "Int32Array" | "Float32Array" | "Float64Array"
            | "BigInt64Array" | "BigUint64Array" | "DataView",
        ) => {
            return Ok(bytes_of(ctx, object).map_or_else(|| repr(ctx, value), Value::Bytes));
        }
        Some("Date") => {
            let millis = object
                .get::<_, Function>("getTime")
                .and_then(|get_time| {
                    get_time.call::<_, f64>((rquickjs::function::This(object.clone()),))
                })
                .unwrap_or(f64::NAN);
            return Ok(date_from_millis(millis).map_or_else(|| repr(ctx, value), Value::DateTime));
        }
        Some(name) if value.type_of() == Type::Exception || name.ends_with("Error") => {
            let message: String = object.get("message").unwrap_or_default();
            let type_name: String = object.get("name").unwrap_or_else(|_| name.to_owned());
            let known = if stockade_wire::KNOWN_EXCEPTION_TYPES.contains(&type_name.as_str()) {
                type_name
            } else {
                "Error".to_owned()
            };
            return Ok(Value::Exception(GuestException::new(&known, &message)));
        }
        _ => {}
    }
    let mut pairs = Vec::new();
    for key in object.keys::<String>() {
        let Ok(key) = key else { continue };
        let item: JsValue = object
            .get(key.as_str())
            .unwrap_or_else(|_| JsValue::new_undefined(ctx.clone()));
        if item.is_function() {
            continue;
        }
        pairs.push((Value::Str(key), convert_out(ctx, &item, ancestors, stop)?));
    }
    Ok(Value::Dict(pairs))
}

/// The items of `Array.from(value[method]())`, or nothing if that fails.
fn entries<'js>(ctx: &Ctx<'js>, value: &JsValue<'js>, method: &str) -> Vec<JsValue<'js>> {
    let listed = (|| -> rquickjs::Result<Vec<JsValue<'js>>> {
        let object = value.as_object().ok_or(rquickjs::Error::Unknown)?;
        let iterate: Function = object.get(method)?;
        let iterator: JsValue = iterate.call((rquickjs::function::This(object.clone()),))?;
        let array_class: Object = ctx.globals().get("Array")?;
        let from: Function = array_class.get("from")?;
        let array: Array = from.call((iterator,))?;
        array.iter::<JsValue>().collect()
    })();
    listed.unwrap_or_default()
}

/// A dict key or set member: unhashable values cross as their text.
fn hashable(value: Value) -> Value {
    if value.is_hashable() {
        value
    } else {
        Value::Str(value.to_string())
    }
}

/// The bytes an ArrayBuffer, typed array or DataView covers. Buffers and
/// typed arrays are read natively, so no getter the guest replaced runs.
fn bytes_of<'js>(ctx: &Ctx<'js>, object: &Object<'js>) -> Option<Vec<u8>> {
    if let Some(buffer) = ArrayBuffer::from_object(object.clone()) {
        return copy_bytes(&buffer, 0, None);
    }
    if let Some((buffer, offset, length)) = typed_array_buffer(ctx, object) {
        return copy_bytes(&buffer, offset, Some(length));
    }
    // A DataView: QuickJS has no native accessor, so its own getters are
    // read from the prototype chain.
    let buffer = ArrayBuffer::from_value(object.get::<_, JsValue>("buffer").ok()?)?;
    let offset: f64 = object.get("byteOffset").ok()?;
    let length: f64 = object.get("byteLength").ok()?;
    copy_bytes(&buffer, offset as usize, Some(length as usize))
}

/// A typed array's buffer, byte offset and byte length, read natively.
fn typed_array_buffer<'js>(
    ctx: &Ctx<'js>,
    object: &Object<'js>,
) -> Option<(ArrayBuffer<'js>, usize, usize)> {
    let mut offset: qjs::size_t = 0;
    let mut length: qjs::size_t = 0;
    let mut per_element: qjs::size_t = 0;
    // SAFETY: the context and the object are live for the call, and the out
    // pointers point at locals. The result is a new reference (or
    // JS_EXCEPTION), which `from_raw` takes over and frees.
    let buffer = unsafe {
        let raw = qjs::JS_GetTypedArrayBuffer(
            ctx.as_raw().as_ptr(),
            object.as_raw(),
            &mut offset,
            &mut length,
            &mut per_element,
        );
        JsValue::from_raw(ctx.clone(), raw)
    };
    if buffer.is_exception() {
        // Not a typed array; drop the TypeError it raised.
        let _ = ctx.catch();
        return None;
    }
    let buffer = ArrayBuffer::from_value(buffer)?;
    Some((
        buffer,
        usize::try_from(offset).ok()?,
        usize::try_from(length).ok()?,
    ))
}

/// Copies `length` bytes (default: all) from `offset` of a buffer; None if it
/// is detached or the range falls outside it.
fn copy_bytes(buffer: &ArrayBuffer<'_>, offset: usize, length: Option<usize>) -> Option<Vec<u8>> {
    let raw = buffer.as_raw()?;
    // SAFETY: the pointer is valid until JavaScript runs again; the bytes are
    // copied here, before anything else runs.
    let bytes = unsafe { raw.as_ref() };
    let end = match length {
        Some(length) => offset.checked_add(length)?,
        None => bytes.len(),
    };
    bytes.get(offset..end).map(<[u8]>::to_vec)
}

fn date_from_millis(millis: f64) -> Option<DateTime> {
    if !millis.is_finite() {
        return None;
    }
    DateTime::from_unix_micros((millis as i64).checked_mul(1000)?, Some(0))
}

/// Converts a value from the host for the guest. Output-only parts are
/// refused with a message naming where they sit (`root` names the value:
/// an input's name, or empty).
pub fn from_wire<'js>(ctx: &Ctx<'js>, value: Value, root: &str) -> rquickjs::Result<JsValue<'js>> {
    // One walk finds what cannot be an input, so the conversion itself
    // builds no path strings.
    if let Some((path, kind)) = value.output_only_part() {
        let shown = if root.is_empty() && path.is_empty() {
            "the value".to_owned()
        } else {
            format!("the value at {root}{path}")
        };
        return Err(rquickjs::Exception::throw_type(
            ctx,
            &format!("{shown} is a {kind}, which is output-only and cannot be an input"),
        ));
    }
    convert_in(ctx, value)
}

fn convert_in<'js>(ctx: &Ctx<'js>, value: Value) -> rquickjs::Result<JsValue<'js>> {
    let globals = ctx.globals();
    Ok(match value {
        Value::None => JsValue::new_null(ctx.clone()),
        Value::Undefined => JsValue::new_undefined(ctx.clone()),
        Value::Bool(b) => JsValue::new_bool(ctx.clone(), b),
        Value::Int(i) => match i32::try_from(i) {
            Ok(small) => JsValue::new_int(ctx.clone(), small),
            Err(_) => JsValue::new_float(ctx.clone(), i as f64),
        },
        Value::BigInt(big) => {
            let make: Function = globals.get("BigInt")?;
            make.call((big.to_string(),))?
        }
        Value::Float(x) => JsValue::new_float(ctx.clone(), x),
        Value::Str(s) => rquickjs::String::from_str(ctx.clone(), &s)?.into_value(),
        Value::Bytes(bytes) => {
            let array = rquickjs::TypedArray::<u8>::new(ctx.clone(), bytes)?;
            array.into_value()
        }
        Value::Set(items) | Value::FrozenSet(items) => {
            let array = Array::new(ctx.clone())?;
            for (i, item) in items.into_iter().enumerate() {
                array.set(i, convert_in(ctx, item)?)?;
            }
            let set: rquickjs::Constructor = globals.get("Set")?;
            set.construct((array,))?
        }
        Value::Dict(pairs) if pairs.iter().any(|(key, _)| !matches!(key, Value::Str(_))) => {
            let array = Array::new(ctx.clone())?;
            for (i, (key, item)) in pairs.into_iter().enumerate() {
                let pair = Array::new(ctx.clone())?;
                pair.set(0, convert_in(ctx, key)?)?;
                pair.set(1, convert_in(ctx, item)?)?;
                array.set(i, pair)?;
            }
            let map: rquickjs::Constructor = globals.get("Map")?;
            map.construct((array,))?
        }
        Value::List(items) | Value::Tuple(items) => {
            let array = Array::new(ctx.clone())?;
            for (i, item) in items.into_iter().enumerate() {
                array.set(i, convert_in(ctx, item)?)?;
            }
            array.into_value()
        }
        Value::Dict(pairs) => {
            let object = Object::new(ctx.clone())?;
            for (key, item) in pairs {
                let name = match key {
                    Value::Str(s) => s,
                    other => other.to_string(),
                };
                object.set(name.as_str(), convert_in(ctx, item)?)?;
            }
            object.into_value()
        }
        Value::Date(d) => date_value(
            ctx,
            stockade_wire::days_from_civil(i64::from(d.year), d.month, d.day) as f64 * 86_400_000.0,
        )?,
        Value::DateTime(dt) => {
            let days =
                stockade_wire::days_from_civil(i64::from(dt.date.year), dt.date.month, dt.date.day);
            let ms = days as f64 * 86_400_000.0
                + f64::from(dt.time.hour) * 3_600_000.0
                + f64::from(dt.time.minute) * 60_000.0
                + f64::from(dt.time.second) * 1000.0
                + f64::from(dt.time.microsecond) / 1000.0
                - f64::from(dt.time.offset_seconds.unwrap_or(0)) * 1000.0;
            date_value(ctx, ms)?
        }
        Value::Time(_) | Value::TimeDelta(_) => {
            rquickjs::String::from_str(ctx.clone(), &value.to_string())?.into_value()
        }
        Value::Exception(e) => {
            let constructor: Function = globals
                .get(e.type_name.as_str())
                .or_else(|_| globals.get("Error"))?;
            constructor.call((e.message,))?
        }
        // from_wire refused these before converting anything.
        Value::Repr(_) | Value::Cycle(_) => {
            return Err(rquickjs::Exception::throw_type(
                ctx,
                "an output-only value cannot be an input",
            ));
        }
    })
}

fn date_value<'js>(ctx: &Ctx<'js>, millis: f64) -> rquickjs::Result<JsValue<'js>> {
    let make: rquickjs::Constructor = ctx.globals().get("Date")?;
    make.construct((millis,))
}
