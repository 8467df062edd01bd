//! Cases given rather than generated: the pinned conformance vectors, which
//! every `diff` runs first, and the files a user replays with `--replay`,
//! so that a failure fixed once stays checked, for an implementation in any
//! language (as `proptest-regressions/` does for this crate). And how such
//! a case shrinks, having no value tree to shrink by, which is also how a
//! generated case shrinks further once its tree can take it no further.

use serde_json::Value;

use crate::wire::Case;

/// A case given, not generated: a pinned vector or one replayed from a file.
#[derive(Clone, Debug)]
pub struct Fixed {
    /// Where it came from: `vector 3`, `old-run.json case 2`.
    pub origin: String,
    /// Whether it is one of the pinned conformance vectors.
    pub pinned: bool,
    /// The case.
    pub case: Case,
}

/// The pinned conformance vectors, as fixed cases.
pub fn pinned() -> Result<Vec<Fixed>, crate::wire::Refusal> {
    Ok(crate::vectors::examples()?
        .into_iter()
        .enumerate()
        .map(|(i, e)| Fixed {
            origin: format!("vector {i} ({})", e.name),
            pinned: true,
            case: e.case,
        })
        .collect())
}

/// Reads the cases of a file to replay: a `--save` file of an earlier run
/// (each divergence's minimal cases, then the cases that first showed it),
/// a vectors file, a single case, or JSON lines of cases (what
/// `rt-tool-3 cases` prints). Each case is read as a case is everywhere, so
/// an invalid one is refused; the error is one line naming the file.
pub fn load(name: &str, bytes: &[u8]) -> Result<Vec<Fixed>, String> {
    // A --save file's observed outcomes may hold a lone surrogate a reply
    // held; its cases never do (a case holding one is refused below).
    let marked = crate::wire::with_lone_surrogates_marked(bytes);
    let bytes = marked.as_deref().unwrap_or(bytes);
    let documents: Vec<Value> = match crate::wire::parse_value(bytes) {
        Ok(document) => vec![document],
        Err(whole) => {
            let mut documents = Vec::new();
            for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let value: Value = crate::wire::parse_value(line).map_err(|e| {
                    format!(
                        "{name} is neither one JSON document ({whole}) nor JSON lines (line {}: {e})",
                        n + 1
                    )
                })?;
                documents.push(value);
            }
            documents
        }
    };
    let mut values = Vec::new();
    for document in &documents {
        cases_in(document, &mut values);
    }
    if values.is_empty() {
        return Err(format!(
            "{name} holds no case (a --save file, a vectors file, a case, or JSON lines of cases)"
        ));
    }
    let mut fixed: Vec<Fixed> = Vec::new();
    for (n, value) in values.into_iter().enumerate() {
        let bytes = serde_json::to_vec(value).map_err(|e| format!("{name}: {e}"))?;
        let case = Case::from_json(&bytes)
            .map_err(|e| format!("{name}: case {n} is not a valid case: {e}"))?;
        if fixed.iter().all(|f| f.case != case) {
            fixed.push(Fixed {
                origin: format!("{name} case {n}"),
                pinned: false,
                case,
            });
        }
    }
    Ok(fixed)
}

/// The cases in a document, in order: a vectors file's, a `--save` file's
/// (minimal first), a vector's or a divergence's, or the document itself
/// when it is a case.
fn cases_in<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
    match v {
        Value::Array(items) => items.iter().for_each(|x| cases_in(x, out)),
        Value::Object(o) if o.contains_key("calls") => out.push(v),
        Value::Object(o) => {
            if let Some(case) = o.get("case") {
                out.push(case);
            }
            for key in ["vectors", "divergences", "minimal", "found"] {
                if let Some(inner) = o.get(key) {
                    cases_in(inner, out);
                }
            }
        }
        _ => {}
    }
}

/// The cases one step smaller than `case`, most shrinking first, made one
/// at a time: a call left out; the exposure left at its default; then, in
/// each result, a key or an item left out, or a value made simpler (a
/// string emptied, a number made 0, `true` made `false`), at any depth.
/// Every one is a valid case: call ids are never touched.
pub fn smaller(case: &Case) -> impl Iterator<Item = Case> + '_ {
    let n = case.calls.len();
    let without_call = (0..n).filter(move |_| n > 1).map(move |i| {
        let mut c = case.clone();
        c.calls.remove(i);
        c
    });
    let default_exposure = case.exposed.is_some().then(|| Case {
        exposed: None,
        calls: case.calls.clone(),
    });
    let simpler_results = case.calls.iter().enumerate().flat_map(move |(i, call)| {
        simpler(&call.result).map(move |result| {
            let mut c = case.clone();
            c.calls[i].result = result;
            c
        })
    });
    without_call.chain(default_exposure).chain(simpler_results)
}

/// The values one step simpler than `v`, made one at a time.
fn simpler(v: &Value) -> Box<dyn Iterator<Item = Value> + '_> {
    match v {
        Value::Object(o) => {
            let removed = o.keys().map(move |k| {
                let mut smaller = o.clone();
                smaller.shift_remove(k);
                Value::Object(smaller)
            });
            let inner = o.iter().flat_map(move |(k, child)| {
                simpler(child).map(move |s| {
                    let mut o = o.clone();
                    o.insert(k.clone(), s);
                    Value::Object(o)
                })
            });
            Box::new(removed.chain(inner))
        }
        Value::Array(a) => {
            let removed = (0..a.len()).map(move |i| {
                let mut smaller = a.clone();
                smaller.remove(i);
                Value::Array(smaller)
            });
            let inner = a.iter().enumerate().flat_map(move |(i, child)| {
                simpler(child).map(move |s| {
                    let mut a = a.clone();
                    a[i] = s;
                    Value::Array(a)
                })
            });
            Box::new(removed.chain(inner))
        }
        Value::String(s) if !s.is_empty() => {
            Box::new(std::iter::once(Value::String(String::new())))
        }
        Value::Number(n) if n.as_f64() != Some(0.0) => Box::new(std::iter::once(Value::from(0))),
        Value::Bool(true) => Box::new(std::iter::once(Value::Bool(false))),
        _ => Box::new(std::iter::empty()),
    }
}
