//! `verdict` and `check`: one case, its reference outcome, and an observed
//! outcome judged against it.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use rt_tool_3::judge::{self, Options, ProseMode};
use rt_tool_3::model::Zone;
use rt_tool_3::wire;

use super::fail::Fail;
use super::input::read_input;
use super::output::{print_with, write_json_line};

/// `verdict`: the reference outcome of a case, on stdout; on stderr, when
/// it is in the lenient zone, why, and what of it is normative call by
/// call.
pub(crate) fn verdict(file: Option<PathBuf>) -> Result<ExitCode, Fail> {
    let (name, bytes) = read_input(file)?;
    // The outcome is computed whole before the first byte is written.
    let out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match rt_tool_3::verdict(&bytes, out) {
        Ok(Zone::Strict) => Ok(ExitCode::SUCCESS),
        Ok(Zone::Lenient(reasons)) => {
            let more = match reasons.len() {
                0..=3 => String::new(),
                n => format!("; and {} more", n - 3),
            };
            eprintln!(
                "rt-tool-3: note: lenient zone, judged call by call: {}{more}. Of a call whose result is not of RT-TOOL-1's shape only the safety half is normative; every other call's artifacts are owed (over RT-TOOL-6's floors, all but what a bound may drop)",
                reasons[..reasons.len().min(3)].join("; ")
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(rt_tool_3::VerdictError::Invalid(e)) => {
            Err(Fail::from(format!("invalid case in {name}: {e}")))
        }
        Err(rt_tool_3::VerdictError::Write(e)) => {
            Err(Fail::write(format!("cannot write stdout: {e}")))
        }
    }
}

/// `check`: an observed outcome judged against the model, as text or
/// JSON; exit 1 if it violates the rule.
pub(crate) fn check(
    case: PathBuf,
    outcome: PathBuf,
    options: Options,
    json: bool,
) -> Result<ExitCode, Fail> {
    if case.as_os_str() == "-" && outcome.as_os_str() == "-" {
        return Err(Fail::from(
            "only one of CASE and OUTCOME can be stdin".to_owned(),
        ));
    }
    let (case_name, case_bytes) = read_input(Some(case))?;
    // The case is read into one compact tree whose strings lie in its
    // text, which is held while the outcome is judged: twelve bytes a value
    // beside the text, where a `Value` tree took seven to fifteen times it.
    let judged = wire::compact::with_case(&case_bytes, |case| {
        let (name, bytes) = read_input(Some(outcome))?;
        // Judged as it is read: neither its text nor a tree of the whole
        // outcome is held while the prose is judged. An outcome holding a
        // lone surrogate escape is judged, not refused.
        judge::judge_text(case, bytes, options)
            .map_err(|e| Fail::from(format!("invalid outcome in {name}: {e}")))
    });
    let judgement =
        judged.map_err(|e| Fail::from(format!("invalid case in {case_name}: {e}")))??;
    if json {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            #[serde(flatten)]
            provenance: rt_tool_3::Provenance,
            reading: ProseMode,
            strict_order: bool,
            conforms: bool,
            #[serde(flatten)]
            judgement: &'a judge::Judgement,
        }
        write_json_line(&Report {
            provenance: rt_tool_3::provenance(),
            reading: options.prose,
            strict_order: options.strict_order,
            conforms: judgement.conforms(),
            judgement: &judgement,
        })?;
    } else {
        let zone = match &judgement.zone {
            Zone::Strict => "strict zone, judged in full".to_string(),
            Zone::Lenient(why) => format!("lenient zone, judged call by call: {}", why.join("; ")),
        };
        let p = rt_tool_3::provenance();
        let by = format!(
            "FlowDrop {}, rule_hash {}, {}, reading ¶3 as {}",
            p.spec_version,
            p.rule_hash,
            p.oracle,
            options.prose.name()
        );
        let last = match judgement.violations.len() {
            0 => format!("conforms to {} ({zone}) — {by}", p.rule),
            n => format!("violates {}: {n} violation(s) ({zone}) — {by}", p.rule),
        };
        // Line by line: a verdict of many findings is not held as text.
        print_with(|out| {
            for v in &judgement.violations {
                writeln!(out, "{v}")?;
            }
            for w in &judgement.warnings {
                writeln!(out, "warning: {w}")?;
            }
            writeln!(out, "{last}")
        })?;
    }
    Ok(if judgement.conforms() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
