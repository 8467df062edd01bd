//! `cases` and `vectors`: what the crate generates (a seeded stream of
//! cases, or their census) and what it pins (the conformance vectors).

use std::io::{self, Write};
use std::process::ExitCode;

use super::fail::Fail;
use super::output::print;

/// Streams `count` generated cases to stdout, one line each. A reader that
/// goes away (`| head`) ends the command quietly, with exit code 0.
pub(crate) fn cases(count: u64, seed: u64) -> Result<ExitCode, Fail> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    let written = (0..count)
        .zip(rt_tool_3::gen::cases(seed))
        .try_for_each(|(_, case)| {
            serde_json::to_writer(&mut out, &case)?;
            out.write_all(b"\n")
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Fail::write(format!("cannot write stdout: {e}"))),
    }
}

/// Prints the census of `n` seeded cases: each feature's share, as a table
/// or JSON. Exits 1 if a feature is under its floor beyond chance
/// ([`rt_tool_3::gen::Share::under`]).
pub(crate) fn census_of(n: u64, seed: u64, json: bool) -> Result<ExitCode, Fail> {
    let census = rt_tool_3::gen::Census::of(n, seed);
    let text = if json {
        let mut text =
            serde_json::to_string_pretty(&census).map_err(|e| Fail::from(e.to_string()))?;
        text.push('\n');
        text
    } else {
        census.markdown()
    };
    print(text.as_bytes())?;
    Ok(if census.under_floor().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `vectors`: the conformance vectors, or with `schema` their JSON Schema,
/// as pretty JSON.
pub(crate) fn vectors(schema: bool) -> Result<ExitCode, Fail> {
    let value = if schema {
        rt_tool_3::vectors::schema()
    } else {
        let vectors = rt_tool_3::vectors::file()
            .map_err(|e| Fail::from(format!("the built-in examples: {e}")))?;
        serde_json::to_value(vectors)
            .map_err(|e| Fail::from(format!("cannot encode the vectors: {e}")))?
    };
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| Fail::from(format!("cannot encode: {e}")))?;
    text.push('\n');
    print(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `--census`: how many cases to count, from 1: a census of none would
/// find nothing under its floor, and say nothing.
pub(crate) fn parse_census(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "--census takes a number of cases from 1, not {text:?}"
        )),
    }
}
