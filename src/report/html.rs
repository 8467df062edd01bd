//! The standing as a web page, and one page comparing implementations.
//!
//! Each page is one self-contained file: its style inline, no script, no
//! font, image or anything else fetched, and a Content Security Policy
//! that forbids all of it, so that even a value that got through unescaped
//! could run nothing. It is also well-formed XML, so a plain XML parser
//! reads it as a browser does (the tests do). Headings give it its outline;
//! each status is said in words (`met`, `not met`, `not exercised`) with a
//! mark, the colour only repeating them; text and background keep a
//! contrast above WCAG's AA.
//!
//! A counterexample shows its case, the expected and the observed outcome
//! side by side, as indented JSON, the lines where expected and observed
//! differ marked (`−` and `+`, in `del` and `ins`). Links go only to
//! fragments of the page itself, whose ids are made of numbers.

use std::fmt::Write as _;

use serde_json::Value;

use super::{anchor, json_pretty, markup, markup_attr, short, Example, PinnedResult, Run};
use crate::judge::Clause;
use crate::standing::Status;

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1b1b1b; background: #fff; margin: 0 auto; max-width: 90rem; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.3rem; border-bottom: 1px solid #999; margin-top: 2.2rem; }
h3 { font-size: 1.1rem; margin-top: 1.6rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #777; padding: .35rem .6rem; text-align: left; vertical-align: top; }
thead th { background: #ececec; white-space: nowrap; }
.scroll { overflow-x: auto; }
.clause, td.met, td.not-met, td.not-exercised, td.not-shown { white-space: nowrap; }
.said { white-space: pre-wrap; overflow-wrap: anywhere; }
th.said { min-width: 12rem; }
.met { background: #e3f4e6; color: #0b4d1a; }
.not-met, .not-shown { background: #fbe4e2; color: #7d130b; font-weight: bold; }
.not-exercised, .not-judged { background: #eeeeee; color: #2b2b2b; }
.not-met a { color: #7d130b; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: bold; }
dd { margin: 0; overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; border: 1px solid #bbb; padding: .5rem; margin: 0; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; }
figure { margin: 0; }
figcaption { font-weight: bold; margin-bottom: .2rem; }
del, ins { text-decoration: none; display: inline; }
del { background: #fbe4e2; color: #7d130b; }
ins { background: #dff2e2; color: #0b4d1a; }
del::before { content: "\2212 "; font-weight: bold; }
ins::before { content: "+ "; font-weight: bold; }
.broken { border: 2px solid #7d130b; padding: .5rem 1rem; }
.warning { border-left: 4px solid #7d130b; padding: .2rem .6rem; }
td.run { min-width: 12rem; }
thead th.wrap { white-space: normal; }
a { color: #0645ad; }
"#;

/// A whole page around `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <meta name=\"generator\" content=\"{}\"/>\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n\
         <body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        markup_attr(&crate::provenance().oracle),
        markup(title)
    )
}

/// The class, mark and words of a status.
fn status(s: Status) -> (&'static str, &'static str) {
    match s {
        Status::Met => ("met", "✓ met"),
        Status::NotMet => ("not-met", "✗ not met"),
        Status::NotExercised => ("not-exercised", "– not exercised"),
        Status::NotShown => ("not-shown", "✗ not shown: only skipped cases bore on it"),
    }
}

/// The provenance of a run, as a definition list.
fn provenance(html: &mut String, run: &Run) {
    let said = &run.said;
    let rows = [
        (
            "Rule",
            format!("{} of the FlowDrop Workflow Specification", said.rule),
        ),
        ("Specification version", said.spec_version.clone()),
        ("Rule hash", said.rule_hash.clone()),
        ("Oracle", said.oracle.clone()),
        ("Implementation", run.implementation()),
        (
            "Reading of ¶3",
            format!(
                "{}{}",
                said.reading,
                if said.strict_order {
                    ", the reference artifact order demanded"
                } else {
                    ""
                }
            ),
        ),
        ("Seed", said.seed.to_string()),
        (
            "Cases",
            format!(
                "{} judged ({} generated in the campaign), {} requests",
                said.cases, said.campaign.generated, said.requests
            ),
        ),
        (
            "Pinned vectors",
            if said.vectors_skipped.is_empty() {
                format!("{} of {} passed", said.vectors_passed, said.vectors_run)
            } else {
                format!(
                    "{} of {} passed, {} skipped: {}",
                    said.vectors_passed,
                    said.vectors_run,
                    said.vectors_skipped.len(),
                    said.vectors_skipped.join("; ")
                )
            },
        ),
    ];
    html.push_str("<dl>\n");
    for (term, value) in rows {
        let _ = writeln!(html, "<dt>{term}</dt><dd>{}</dd>", markup(&value));
    }
    let _ = writeln!(
        html,
        "<dt>Reproduce</dt><dd><code>{}</code></dd>\n</dl>",
        markup(&said.reproduce)
    );
}

/// The lines of `expected` and `observed` as indented JSON, those that
/// differ wrapped in `del` (expected) and `ins` (observed).
fn marked(expected: &str, observed: &str) -> (String, String) {
    /// Past this many lines a side is shown unmarked: marking costs the
    /// product of the lines that differ, which a hostile reply could make
    /// large.
    const MARKED_LINES: usize = 5000;
    if expected.lines().count() > MARKED_LINES || observed.lines().count() > MARKED_LINES {
        return (markup(expected), markup(observed));
    }
    let diff = similar::TextDiff::from_lines(expected, observed);
    let (mut left, mut right) = (String::new(), String::new());
    for change in diff.iter_all_changes() {
        let text = markup(change.value());
        match change.tag() {
            similar::ChangeTag::Equal => {
                left.push_str(&text);
                right.push_str(&text);
            }
            similar::ChangeTag::Delete => {
                let _ = write!(left, "<del>{text}</del>");
            }
            similar::ChangeTag::Insert => {
                let _ = write!(right, "<ins>{text}</ins>");
            }
        }
    }
    (left, right)
}

/// A counterexample, its heading `heading` with fragment id `id`.
fn example(html: &mut String, id: &str, heading: &str, x: &Example) {
    let _ = writeln!(
        html,
        "<section aria-labelledby=\"{id}\">\n<h3 id=\"{id}\">{}</h3>\n<ul>",
        markup(heading)
    );
    for r in &x.reason {
        let _ = writeln!(html, "<li>{}</li>", markup(r));
    }
    html.push_str("</ul>\n");
    let codes = x.codes_text();
    if !codes.is_empty() {
        let _ = writeln!(html, "<p>Codes: <code>{}</code></p>", markup(&codes));
    }
    let caption = x.shrink_end.note().map_or_else(
        || "Minimal case".to_owned(),
        |note| format!("The case: {note}"),
    );
    // A sibling that showed it is the request that did: shown first, as
    // sent; the case it was built from after it, as context.
    match &x.sibling {
        Some(s) => {
            let _ = writeln!(
                html,
                "<p>{}</p>",
                markup(&format!(
                    "Shown on its {} sibling ({}): the request that showed it, as sent.",
                    s.name, s.what
                ))
            );
            sides(
                html,
                &format!("{caption}: the sibling, as sent"),
                &s.case,
                &s.expected,
                &s.observed,
            );
            html.push_str(
                "<p>The case it was built from (the one to --replay: diff builds its siblings again):</p>\n",
            );
            sides(html, "The case", &x.case, &x.expected, &x.observed);
        }
        None => sides(html, &caption, &x.case, &x.expected, &x.observed),
    }
    html.push_str("</section>\n");
}

/// A case, its expected and its observed outcome side by side, the lines
/// where the two outcomes differ marked, and said to be so when they do.
fn sides(html: &mut String, caption: &str, case: &Value, expected: &Value, observed: &Value) {
    let (expected, observed) = (json_pretty(expected), json_pretty(observed));
    let (marked_expected, marked_observed) = marked(&expected, &observed);
    let _ = writeln!(
        html,
        "<div class=\"sides\">\n\
         <figure><figcaption>{}</figcaption><pre>{}</pre></figure>\n\
         <figure><figcaption>Expected outcome (the reference)</figcaption><pre>{marked_expected}</pre></figure>\n\
         <figure><figcaption>Observed outcome</figcaption><pre>{marked_observed}</pre></figure>\n\
         </div>",
        markup(caption),
        markup(&json_pretty(case))
    );
    html.push_str(if expected == observed {
        "<p>The expected and the observed outcome are the same.</p>\n"
    } else {
        "<p>Lines marked − in the expected outcome and + in the observed one are where the two differ.</p>\n"
    });
}

/// What a run that broke says instead of a standing.
fn broken(html: &mut String, run: &Run, id: &str) {
    let _ = writeln!(
        html,
        "<section class=\"broken\" aria-labelledby=\"{id}\">\n<h3 id=\"{id}\">No standing: the process broke</h3>\n<p>{}</p>",
        run.no_standing(markup).unwrap_or_default()
    );
    if let Some(case) = &run.broken_case {
        let _ = writeln!(
            html,
            "<figure><figcaption>The case it broke on</figcaption><pre>{}</pre></figure>",
            markup(&json_pretty(case))
        );
    }
    html.push_str("</section>\n");
}

/// A run's counterexamples, each under a heading with its fragment id.
fn examples(html: &mut String, run: &Run, row: usize) {
    for c in &run.said.clauses {
        if let Some(x) = &c.counterexample {
            let heading = format!("{}: not met", c.clause);
            example(html, &anchor(row, Some(c.clause)), &heading, x);
        }
    }
    if let Some(x) = &run.said.errored {
        let heading = "Errored on a case it owed an outcome for";
        example(html, &anchor(row, None), heading, x);
    }
}

/// The run's standing as a page.
pub fn standing(run: &Run) -> String {
    let said = &run.said;
    let who = run.implementation();
    let title = format!("{} standing: {who}", said.rule);
    let mut html = format!("<h1>{}</h1>\n", markup(&title));
    html.push_str("<h2>Provenance</h2>\n");
    provenance(&mut html, run);
    if let Some(_why) = &run.broken {
        html.push_str("<h2>Process</h2>\n");
        broken(&mut html, run, "broken");
    }
    if said.complete {
        html.push_str(
            "<h2>Clause by clause</h2>\n<div class=\"scroll\"><table>\n<thead><tr><th scope=\"col\">Clause</th><th scope=\"col\">What it asks</th><th scope=\"col\">Standing</th><th scope=\"col\">Judged cases that bore on it</th></tr></thead>\n<tbody>\n",
        );
        for c in &said.clauses {
            let (class, words) = status(c.status);
            let shown = match c.status {
                Status::NotMet => format!("<a href=\"#{}\">{words}</a>", anchor(0, Some(c.clause))),
                _ => words.to_owned(),
            };
            let _ = writeln!(
                html,
                "<tr><th scope=\"row\" class=\"clause\">{}</th><td>{}</td><td class=\"{class}\">{shown}</td><td>{}</td></tr>",
                markup(c.clause.id()),
                markup(&c.title),
                crate::standing::cases_text(c.cases, c.skipped)
            );
        }
        html.push_str("</tbody>\n</table></div>\n");
        let _ = writeln!(
            html,
            "<p>{}</p>",
            match &said.errored {
                Some(_) => format!(
                    "It errored on a case it owed an outcome for: <a href=\"#{}\">the case</a>.",
                    anchor(0, None)
                ),
                None => "It gave an outcome for every case that owed one.".to_owned(),
            }
        );
        if said.clauses.iter().any(|c| c.counterexample.is_some()) || said.errored.is_some() {
            html.push_str("<h2>Counterexamples</h2>\n");
            examples(&mut html, run, 0);
        }
    }
    let failed: Vec<_> = run
        .vectors
        .iter()
        .filter(|v| v.result == PinnedResult::Failed)
        .collect();
    if !failed.is_empty() {
        html.push_str("<h2>Pinned vectors that diverged</h2>\n<ul>\n");
        for v in failed {
            let _ = writeln!(html, "<li>{}</li>", markup(&v.name));
        }
        html.push_str("</ul>\n");
    }
    page(&title, &html)
}

/// One page over the runs of several implementations: a row each, a
/// column each clause, each cell not met linked to its counterexample. It
/// fits a 1280-pixel window: what tells runs apart (the version and
/// language announced, the seed, the reading, the cases, the oracle) is
/// one column that wraps, not five.
pub fn compare(runs: &[Run]) -> String {
    let title = match runs.first() {
        Some(r) => format!("{}: implementations compared", r.said.rule),
        None => "implementations compared".to_owned(),
    };
    let mut html = format!("<h1>{}</h1>\n", markup(&title));
    if let Some(first) = runs.first() {
        let _ = writeln!(
            html,
            "<p>{}</p>",
            markup(&format!(
                "Each implementation judged against rule {} of the FlowDrop Workflow Specification {} (rule_hash {}). A row is a run, by the name it announced, then its version and language, seed, reading and oracle; a cell not met links to its minimal counterexample below.",
                first.said.rule, first.said.spec_version, first.said.rule_hash
            ))
        );
    }
    for warning in alike(runs) {
        let _ = writeln!(html, "<p class=\"warning\">{}</p>", markup(&warning));
    }
    html.push_str("<h2>Clause by clause</h2>\n<div class=\"scroll\"><table>\n<thead><tr><th scope=\"col\">Implementation</th><th scope=\"col\">Run</th>");
    for c in Clause::ALL {
        let _ = write!(
            html,
            "<th scope=\"col\"><abbr title=\"{}\">{}</abbr></th>",
            markup_attr(&format!("{c}: {}", c.title())),
            markup(short(c))
        );
    }
    html.push_str("<th scope=\"col\" class=\"wrap\">Owed outcomes</th></tr></thead>\n<tbody>\n");
    for (row, run) in runs.iter().enumerate() {
        compare_row(&mut html, row, run);
    }
    html.push_str("</tbody>\n</table></div>\n");
    for (row, run) in runs.iter().enumerate() {
        let _ = writeln!(
            html,
            "<h2 id=\"run{row}\">{}</h2>",
            markup(&run.implementation())
        );
        provenance(&mut html, run);
        if run.broken.is_some() {
            broken(&mut html, run, &format!("run{row}-broken"));
        }
        examples(&mut html, run, row);
    }
    page(&title, &html)
}

/// What tells a run apart from another of the same name, in one line:
/// `2.1.0 (php), seed 5, data-only, 47 cases, rt-tool-3 0.9.0`.
fn run_line(run: &Run) -> String {
    let said = &run.said;
    let mut line = Vec::new();
    let version = run.announced("version");
    let language = run.announced("language").map(|l| format!("({l})"));
    let announced: Vec<String> = version.into_iter().chain(language).collect();
    if !announced.is_empty() {
        line.push(announced.join(" "));
    }
    line.push(format!("seed {}", said.seed));
    line.push(format!(
        "{}{}",
        said.reading,
        if said.strict_order {
            ", strict order"
        } else {
            ""
        }
    ));
    line.push(format!("{} cases", said.cases));
    line.push(said.oracle.clone());
    line.join(", ")
}

/// A warning for each pair of runs that share their name, the version
/// announced, the seed, the reading and the oracle: nothing on the page
/// tells them apart.
fn alike(runs: &[Run]) -> Vec<String> {
    let key = |r: &Run| {
        (
            r.announced("name"),
            r.announced("version"),
            r.said.seed,
            r.said.reading.clone(),
            r.said.strict_order,
            r.said.oracle.clone(),
        )
    };
    let mut warnings = Vec::new();
    for (i, a) in runs.iter().enumerate() {
        if let Some(j) = runs[..i].iter().position(|b| key(b) == key(a)) {
            warnings.push(format!(
                "Warning: rows {} and {} share their name, version, seed, reading and oracle; nothing here tells them apart.",
                j + 1,
                i + 1
            ));
        }
    }
    warnings
}

/// A run's row: its name, what tells it apart, then each clause's standing
/// and the owed outcomes; or, for a run that broke, how.
fn compare_row(html: &mut String, row: usize, run: &Run) {
    let said = &run.said;
    let _ = write!(
        html,
        "<tr><th scope=\"row\" class=\"said\"><a href=\"#run{row}\">{}</a></th><td class=\"said run\">{}</td>",
        markup(&run.announced("name").unwrap_or_else(|| "unnamed".into())),
        markup(&run_line(run)),
    );
    if !said.complete {
        let how = match (&run.broken_code, said.fault_phase) {
            (Some(code), phase) => format!("{} ({code})", phase.unwrap_or_default().broke()),
            (None, _) => "the process broke".to_owned(),
        };
        let _ = writeln!(
            html,
            "<td class=\"not-judged\" colspan=\"{}\"><a href=\"#run{row}-broken\">no standing: {}</a></td></tr>",
            Clause::ALL.len() + 1,
            markup(&how)
        );
        return;
    }
    for c in Clause::ALL {
        match said.clauses.iter().find(|x| x.clause == c) {
            Some(x) => {
                let (class, words) = status(x.status);
                // The words before a colon: the page of the run says more.
                let words = words.split(':').next().unwrap_or(words);
                let shown = match x.status {
                    Status::NotMet => {
                        format!("<a href=\"#{}\">{words}</a>", anchor(row, Some(c)))
                    }
                    _ => words.to_owned(),
                };
                let _ = write!(html, "<td class=\"{class}\">{shown}</td>");
            }
            None => html.push_str("<td class=\"not-judged\">not judged</td>"),
        }
    }
    match said.errored {
        Some(_) => {
            let _ = writeln!(
                html,
                "<td class=\"not-met\"><a href=\"#{}\">✗ errored</a></td></tr>",
                anchor(row, None)
            );
        }
        None => html.push_str("<td class=\"met\">✓ given</td></tr>\n"),
    }
}
