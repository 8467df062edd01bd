//! The census of ranges: how the generated stream spreads over each
//! dimension of a case, bucket by bucket, rather than which named features
//! it shows. A runtime that caps a size, rounds a number or reads a key
//! somewhere no feature names is met only if the stream reaches there, so
//! each dimension is counted by magnitude (sizes, counts, digits) or by
//! kind (keys, repetition), and `tests/rule/census.rs` holds each bucket that
//! matters to a floor.
//!
//! Worked example: a payload `{"name": "a.csv", "content": "…"}` of 3,000
//! bytes of compact JSON falls in bucket 11 (2,048 to 4,095 bytes); the
//! number `1.5E-7` has 2 significant digits and an exponent form.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::*;

/// Each dimension's histogram over a number of cases.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Ranges {
    /// Artifact payloads counted: the distinct objects under a `payload`
    /// of an entry of an `artifacts` list, each once a case (a run of 50
    /// artifacts cycling through five counts five).
    pub payloads: u64,
    /// Payloads by the power of two below their compact JSON size: bucket
    /// `k` holds sizes from 2^k to 2^(k+1) − 1 bytes.
    pub payload_bytes: BTreeMap<u32, u64>,
    /// Numbers counted, anywhere in a result.
    pub numbers: u64,
    /// Numbers by their count of significant digits.
    pub digits: BTreeMap<u32, u64>,
    /// Numbers written with an exponent (`e` or `E`).
    pub exponent_forms: u64,
    /// Every distinct key at a result's top level.
    pub result_keys: BTreeSet<String>,
    /// Strings of `data` by the power of two below their length in
    /// characters (bucket 0 holds the empty string too).
    pub data_chars: BTreeMap<u32, u64>,
    /// Cases by their count of calls (the power of two below it).
    pub calls: BTreeMap<u32, u64>,
    /// Results by their nesting depth (the power of two below it).
    pub depth: BTreeMap<u32, u64>,
    /// Cases of two or more calls.
    pub multi_call_cases: u64,
    /// Of those, cases in which two calls returned the same result.
    pub identical_results: u64,
}

fn log2(n: u64) -> u32 {
    n.max(1).ilog2()
}

/// The significant digits of a number as written: `-0.00120e5` has 2.
pub fn significant_digits(text: &str) -> u32 {
    let mantissa = text.split(['e', 'E']).next().unwrap_or_default();
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let trimmed = digits.trim_start_matches('0').trim_end_matches('0');
    trimmed.len().max(1) as u32
}

impl Ranges {
    /// Counts one case.
    pub fn count(&mut self, case: &Case) {
        *self.calls.entry(log2(case.calls.len() as u64)).or_default() += 1;
        if case.calls.len() > 1 {
            self.multi_call_cases += 1;
            let mut seen = BTreeSet::new();
            let twins = case
                .calls
                .iter()
                .any(|c| !seen.insert(crate::model::sorted_compact_json(&c.result)));
            self.identical_results += u64::from(twins);
        }
        let mut payloads = BTreeSet::new();
        for call in &case.calls {
            *self
                .depth
                .entry(log2(depth_of(&call.result) as u64))
                .or_default() += 1;
            self.numbers_in(&call.result);
            let Value::Object(result) = &call.result else {
                continue;
            };
            self.result_keys.extend(result.keys().cloned());
            if let Some(data) = result.get("data") {
                strings_in(data, &mut |s| {
                    *self
                        .data_chars
                        .entry(log2(s.chars().count() as u64))
                        .or_default() += 1;
                });
            }
            for entry in result
                .get("artifacts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(payload @ Value::Object(_)) = entry.get("payload") {
                    payloads.insert(serde_json::to_string(payload).unwrap_or_default());
                }
            }
        }
        self.payloads_in(payloads);
    }

    fn payloads_in(&mut self, payloads: BTreeSet<String>) {
        for p in payloads {
            self.payloads += 1;
            *self.payload_bytes.entry(log2(p.len() as u64)).or_default() += 1;
        }
    }

    fn numbers_in(&mut self, v: &Value) {
        match v {
            Value::Number(n) => {
                let text = n.to_string();
                self.numbers += 1;
                *self.digits.entry(significant_digits(&text)).or_default() += 1;
                self.exponent_forms += u64::from(text.contains(['e', 'E']));
            }
            Value::Array(a) => a.iter().for_each(|x| self.numbers_in(x)),
            Value::Object(o) => o.values().for_each(|x| self.numbers_in(x)),
            _ => {}
        }
    }

    /// The share, in percent, of payloads in size bucket `k`.
    pub fn payload_share(&self, k: u32) -> f64 {
        percent(
            self.payload_bytes.get(&k).copied().unwrap_or(0),
            self.payloads,
        )
    }

    /// The share, in percent, of numbers with at least `d` significant
    /// digits.
    pub fn digits_at_least(&self, d: u32) -> f64 {
        percent(self.digits.range(d..).map(|(_, n)| n).sum(), self.numbers)
    }

    /// The share, in percent, of numbers written with an exponent.
    pub fn exponent_share(&self) -> f64 {
        percent(self.exponent_forms, self.numbers)
    }

    /// The share, in percent, of cases of two or more calls in which two
    /// calls returned the same result.
    pub fn identical_share(&self) -> f64 {
        percent(self.identical_results, self.multi_call_cases)
    }

    /// The histograms as Markdown.
    pub fn markdown(&self) -> String {
        let mut out = String::from("\n## Ranges\n\n");
        let histogram =
            |out: &mut String, title: &str, unit: &str, h: &BTreeMap<u32, u64>, total: u64| {
                out.push_str(&format!("{title}: "));
                let cells: Vec<String> = h
                    .iter()
                    .map(|(k, n)| format!("2^{k} {unit} {:.2} %", percent(*n, total)))
                    .collect();
                out.push_str(&cells.join(", "));
                out.push_str("\n\n");
            };
        histogram(
            &mut out,
            &format!("payload size ({} payloads)", self.payloads),
            "B",
            &self.payload_bytes,
            self.payloads,
        );
        let strings: u64 = self.data_chars.values().sum();
        histogram(
            &mut out,
            "string length in data",
            "chars",
            &self.data_chars,
            strings,
        );
        let cases: u64 = self.calls.values().sum();
        histogram(&mut out, "calls per case", "calls", &self.calls, cases);
        let results: u64 = self.depth.values().sum();
        histogram(&mut out, "result depth", "levels", &self.depth, results);
        out.push_str(&format!(
            "numbers: {}; 15 or more significant digits {:.2} %, exponent forms {:.2} %; by digits: {}\n\n",
            self.numbers,
            self.digits_at_least(15),
            self.exponent_share(),
            self.digits
                .iter()
                .map(|(d, n)| format!("{d}: {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        out.push_str(&format!(
            "distinct top-level result keys: {}; cases of two or more calls with two identical results: {:.2} %\n",
            self.result_keys.len(),
            self.identical_share()
        ));
        out
    }
}

fn percent(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

fn depth_of(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

fn strings_in(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| strings_in(x, f)),
        Value::Object(o) => o.values().for_each(|x| strings_in(x, f)),
        _ => {}
    }
}
