//! `merge` and `report`: the `--json` reports of runs read back, the
//! shards of one campaign joined into one, or implementations compared on
//! one page.

use std::path::PathBuf;
use std::process::ExitCode;

use rt_tool_3::report;

use super::conclusion::{conclude, save, Files};
use super::fail::Fail;
use super::input::read_input;
use super::output::write_file;

/// `merge`: the shards' reports read, checked and joined.
pub(crate) fn merge(paths: &[PathBuf], files: &Files) -> Result<ExitCode, Fail> {
    let mut parts = Vec::with_capacity(paths.len());
    for path in paths {
        parts.push(read_input(Some(path.clone()))?);
    }
    let report = rt_tool_3::merge::merge(&parts).map_err(Fail::from)?;
    let save_error = save(files.save.as_deref(), &report);
    conclude(&report, files, save_error)
}

/// `report`: the page comparing the implementations of the `--json`
/// reports `paths`, written to `out`.
pub(crate) fn compare(paths: &[PathBuf], out: &std::path::Path) -> Result<ExitCode, Fail> {
    let mut runs: Vec<report::Run> = Vec::with_capacity(paths.len());
    for path in paths {
        let (name, bytes) = read_input(Some(path.clone()))?;
        let run = report::Run::read(&name, &bytes).map_err(Fail::from)?;
        if let Some(first) = runs.first() {
            let text = |r: &report::Run| {
                format!(
                    "{} (FlowDrop {}, rule_hash {})",
                    r.said.rule, r.said.spec_version, r.said.rule_hash
                )
            };
            if text(first) != text(&run) {
                return Err(Fail::from(format!(
                    "{name} judged {}, the first report {}: a page compares runs against one text",
                    text(&run),
                    text(first)
                )));
            }
        }
        runs.push(run);
    }
    write_file(out, report::html::compare(&runs).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
