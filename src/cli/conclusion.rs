//! The end of `diff` and `merge`: the standing and the reports written,
//! the `--save` file, the report printed (as JSON, or as text for a
//! reader), and the exit code.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rt_tool_3::diff;
use rt_tool_3::escape::terminal;
use rt_tool_3::report;
use rt_tool_3::standing::{Standing, Status};

use super::fail::Fail;
use super::output::{json_text, print, shown, write_file, write_report_line, CUT_NOTE};
use crate::Reports;

/// The files and form of `diff`'s output.
pub(crate) struct Files {
    pub(crate) save: Option<PathBuf>,
    pub(crate) standing: Option<PathBuf>,
    pub(crate) reports: Reports,
    pub(crate) json: bool,
}

impl Reports {
    /// Writes each report asked for, of `run` (made only if one is).
    pub(crate) fn write(
        &self,
        run: impl FnOnce() -> Result<report::Run, String>,
    ) -> Result<(), Fail> {
        type Render = fn(&report::Run) -> String;
        let writers: [(&Option<PathBuf>, Render); 3] = [
            (&self.junit, report::junit::junit),
            (&self.html, report::html::standing),
            (&self.badge, report::badge::badge),
        ];
        if writers.iter().all(|(path, _)| path.is_none()) {
            return Ok(());
        }
        let run = run().map_err(Fail::from)?;
        for (path, render) in writers {
            if let Some(path) = path {
                write_file(path, render(&run).as_bytes())?;
            }
        }
        Ok(())
    }
}

/// The end of `diff` and `merge`: the standing written, the report
/// printed, and the exit code.
pub(crate) fn conclude(
    report: &diff::Report,
    files: &Files,
    save_error: Option<String>,
) -> Result<ExitCode, Fail> {
    let standing = Standing::of(report);
    if let Some(path) = &files.standing {
        write_file(path, standing.markdown().as_bytes())?;
    }
    files.reports.write(|| report::Run::of(report, &standing))?;
    if files.json {
        #[derive(serde::Serialize)]
        struct Json<'a> {
            #[serde(flatten)]
            report: &'a diff::Report,
            standing: &'a Standing,
        }
        write_report_line(&Json {
            report,
            standing: &standing,
        })?;
    } else {
        print_report(report, &standing, files.save.as_deref())?;
    }
    if let Some(e) = save_error {
        return Err(Fail::write(e));
    }
    if let Some(f) = &report.fault {
        return Err(Fail::process(&f.code, fault_line(f)));
    }
    Ok(if report.divergences.is_empty() && standing.shown() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// How many warnings, and how many skipped pinned vectors, the text report
/// shows one by one, each warning with its case; `--json` lists the first
/// `WARNED_MAX` warnings, and every vector skipped.
const SHOWN: usize = 10;

/// The report as text for a reader, on stdout: what was run, the warnings,
/// each divergence with its minimal case, the standing clause by clause,
/// and how it ended.
fn print_report(
    report: &diff::Report,
    standing: &Standing,
    save: Option<&Path>,
) -> Result<(), Fail> {
    let mut text = heading(report);
    warnings(report, &mut text);
    for d in &report.divergences {
        divergence(d, &mut text);
    }
    if standing.complete {
        clauses(standing, &mut text);
    }
    ending(report, standing, save, &mut text);
    print(text.as_bytes())
}

/// The report's first line: the implementation, the text it was judged
/// against, the reading, and what the run examined.
fn heading(report: &diff::Report) -> String {
    let name = |k: &str| {
        report
            .implementation
            .get(k)
            .and_then(serde_json::Value::as_str)
            .map_or_else(|| "?".to_owned(), terminal)
    };
    format!(
        "rt-tool-3 diff: {} ({}) against {}, reading ¶3 as {}: {} cases ({} pinned vectors, {} replayed), {} requests, seed {}{}{}\n",
        name("name"),
        name("language"),
        report.provenance,
        report.reading.name(),
        report.cases,
        report.vectors.run,
        report.replayed - report.vectors.run,
        report.requests,
        report.seed,
        if report.campaign.shard.count > 1 {
            format!(", shard {} of the campaign's {} cases", report.campaign.shard, report.campaign.fixed + report.campaign.generated)
        } else {
            String::new()
        },
        if report.skipped > 0 {
            format!(", {} skipped", report.skipped)
        } else {
            String::new()
        },
    )
}

/// The first few warnings, each with where it was seen, and how many there
/// were in all when that is more.
fn warnings(report: &diff::Report, text: &mut String) {
    for w in report.warned.iter().take(SHOWN) {
        text.push_str(&format!(
            "warning: {} [{}]: {}\n",
            w.origin,
            w.code,
            terminal(&w.message)
        ));
    }
    if report.warnings > SHOWN.min(report.warned.len()) as u64 {
        text.push_str(&format!(
            "warning: {} warning(s) in all; --json lists the first {} with their cases\n",
            report.warnings,
            rt_tool_3::diff::WARNED_MAX
        ));
    }
}

/// A divergence: the clauses it shows, where it was first seen, and each
/// of its minimal cases (or, when a limit stopped shrinking first, what
/// the case is, and each of the smallest found).
fn divergence(d: &diff::Divergence, text: &mut String) {
    text.push_str(&format!(
        "\nDIVERGENCE {} (first seen in {})\n",
        clause_ids(d),
        d.origin
    ));
    if !d.shrink_end.minimal() {
        text.push_str(&format!("  the case: {}\n", shrunk_to(d)));
    }
    let label = match d.shrink_end.minimal() {
        true => "minimal case:",
        false => "smallest yet:",
    };
    for v in &d.minimal {
        minimal(v, label, text);
    }
}

/// What shrinking a divergence came to, in words: `a minimal case in 693
/// requests`, or the limit that stopped it first, with the requests (and
/// the seconds, when the time budget ran out).
pub(crate) fn shrunk_to(d: &diff::Divergence) -> String {
    let spent = match d.shrink_seconds {
        Some(seconds) => format!("{} requests in {seconds:.1} s", d.shrink_requests),
        None => format!("{} requests", d.shrink_requests),
    };
    match d.shrink_end.note() {
        None => format!("a minimal case in {spent}"),
        Some(note) => format!("{note} ({spent})"),
    }
}

/// A minimal case (or the smallest found, `label` says which): its
/// violations (or what diverged), the case, the outcome expected and the
/// one observed, and the sibling that showed it, if one did; each value on
/// one line, its longest strings cut.
fn minimal(v: &diff::Vector, label: &str, text: &mut String) {
    for violation in &v.violations {
        text.push_str(&format!("  {}\n", terminal(&violation.to_string())));
    }
    if v.violations.is_empty() {
        text.push_str(&format!("  {}\n", terminal(&v.description)));
    }
    let mut cut = false;
    let mut line = |label: &str, value: Result<serde_json::Value, serde_json::Error>| {
        let (value, shortened) = shown(&value.unwrap_or_default());
        cut |= shortened;
        // A lone surrogate the reply held, as the reply wrote it, and
        // nothing a terminal acts on.
        let value = terminal(&value);
        format!("  {label} {value}\n")
    };
    // A sibling that showed it is the request that did: first, as sent;
    // the case it was built from after it, as context.
    let lines = match &v.sibling {
        Some(s) => vec![
            format!(
                "  shown on its {} sibling ({}), as sent:\n",
                terminal(&s.name),
                terminal(&s.what)
            ),
            line(label, serde_json::to_value(&s.case)),
            line("expected:    ", serde_json::to_value(&s.expected)),
            line("observed:    ", Ok(s.observed.clone())),
            "  the case it was built from (the one to --replay: diff builds its siblings again):\n"
                .to_owned(),
            line("case:        ", serde_json::to_value(&v.case)),
            line("expected:    ", serde_json::to_value(&v.expected)),
            line("observed:    ", Ok(v.observed.clone())),
        ],
        None => vec![
            line(label, serde_json::to_value(&v.case)),
            line("expected:    ", serde_json::to_value(&v.expected)),
            line("observed:    ", Ok(v.observed.clone())),
        ],
    };
    text.push_str(&lines.concat());
    if cut {
        text.push_str(&format!("  {CUT_NOTE}\n"));
    }
}

/// The standing of a complete run, clause by clause, and the first few
/// pinned vectors the implementation skipped.
fn clauses(standing: &Standing, text: &mut String) {
    text.push('\n');
    for c in &standing.clauses {
        let status = match c.status {
            Status::Met => "met",
            Status::NotMet => "NOT MET",
            Status::NotExercised => "not exercised",
            Status::NotShown => "NOT SHOWN",
        };
        let skipped = if c.skipped > 0 {
            format!(", {} skipped", c.skipped)
        } else {
            String::new()
        };
        text.push_str(&format!(
            "{:<13} {status} ({} cases bore on it{skipped})\n",
            c.clause.id(),
            c.cases
        ));
    }
    let skipped = &standing.vectors_skipped;
    for v in skipped.iter().take(SHOWN) {
        text.push_str(&format!(
            "SKIPPED {v}: every implementation owes each pinned vector its outcome\n"
        ));
    }
    if skipped.len() > SHOWN {
        text.push_str(&format!(
            "SKIPPED {} pinned vectors in all; --json lists them\n",
            skipped.len()
        ));
    }
}

/// The report's last line: how many divergences, and where they were
/// saved; or that there was none, and whether that shows conformance.
fn ending(report: &diff::Report, standing: &Standing, save: Option<&Path>, text: &mut String) {
    if let (false, Some(save)) = (report.divergences.is_empty(), save) {
        text.push_str(&format!(
            "\n{} divergence(s), saved as JSON vectors to {}\n",
            report.divergences.len(),
            save.display()
        ));
    } else if !report.divergences.is_empty() {
        text.push_str(&format!("\n{} divergence(s)\n", report.divergences.len()));
    } else if report.fault.is_none() && standing.complete && !standing.shown() {
        text.push_str(
            "no divergence, but not shown: the implementation skipped what the run bore on\n",
        );
    } else if report.fault.is_none() {
        text.push_str("no divergence\n");
    }
    if let Some(f) = &report.fault {
        text.push_str(&format!(
            "\nNO STANDING. {}\n",
            f.phase.no_standing(&f.message, &f.code, terminal)
        ));
    }
}

/// Writes a report to a `--save` file, atomically; the error, if any.
pub(crate) fn save(path: Option<&Path>, report: &diff::Report) -> Option<String> {
    let path = path?;
    let text = json_text(report, true);
    rt_tool_3::atomic::write(path, text.as_bytes())
        .err()
        .map(|e| format!("cannot write {}: {e}", path.display()))
}

/// The clause ids (and `errored`) a divergence shows, as a list.
pub(crate) fn clause_ids(d: &diff::Divergence) -> String {
    let ids: Vec<&str> = d.signature.iter().map(String::as_str).collect();
    ids.join(", ")
}

/// The line a fault ends the run with: what went wrong, and the case it
/// broke on, when it broke on one.
fn fault_line(f: &diff::FaultReport) -> String {
    let Some(case) = &f.case else {
        return f.message.clone();
    };
    let (case, cut) = shown(&serde_json::to_value(case).unwrap_or_default());
    let note = if cut {
        format!(" {CUT_NOTE}")
    } else {
        String::new()
    };
    format!("{}; the case: {case}{note}", f.message)
}
