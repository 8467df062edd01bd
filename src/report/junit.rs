//! The run as JUnit XML, the file CI services (GitHub Actions, GitLab,
//! Jenkins, Buildkite) show in their test panels.
//!
//! `testsuites` holds two `testsuite`s. The first has one `testcase` per
//! clause of the standing: passed when met, a `failure` when not met
//! (carrying the judge's sentences, the minimal case, the expected and the
//! observed outcome), `skipped` when not exercised; and one for the
//! outcomes owed, a `failure` when the implementation errored on a case it
//! owed an outcome for. When the implementation's process broke (a crash, a
//! hang, garbage: `diff` exits 2) it holds an `error` first, and its
//! clauses are `skipped`, nothing being claimed: never an empty pass. The
//! second has one `testcase` per pinned conformance vector of the run.
//! The counts (`tests`, `failures`, `errors`, and `skipped` on each suite,
//! the only place the Jenkins xUnit plugin's `junit-10.xsd` allows it) are
//! those of the cases written, for each suite and for the whole. Every
//! `failure` is typed by its first finding's code and its message begins
//! with the clauses its codes cite (`RT-TOOL-3 ¶1: …`), a pinned vector's
//! too. Nothing in it depends on the clock, so merged shards give the file
//! one run gives.

use std::fmt::Write as _;

use serde_json::Value;

use super::{json, markup, markup_attr, ClauseSaid, Example, Pinned, PinnedResult, Run, Said};
use crate::judge::Code;
use crate::standing::Status;

/// How a test case ended.
enum Outcome {
    Passed,
    /// `failure`, `error` or `skipped`, with its `message`, its `type`
    /// and its text.
    Not {
        element: &'static str,
        message: String,
        kind: String,
        text: String,
    },
}

struct TestCase {
    classname: &'static str,
    name: String,
    outcome: Outcome,
    /// What to show for a case that passed.
    out: Option<String>,
}

struct Suite {
    name: String,
    properties: Vec<(&'static str, String)>,
    cases: Vec<TestCase>,
}

impl Suite {
    /// How many of its cases end in `element` (all for `None`).
    fn count(&self, element: Option<&str>) -> usize {
        self.cases
            .iter()
            .filter(|c| match (&c.outcome, element) {
                (_, None) => true,
                (Outcome::Not { element: e, .. }, Some(want)) => *e == want,
                (Outcome::Passed, Some(_)) => false,
            })
            .count()
    }
}

/// The counts attributes of a suite, or of all of them: `skipped` only on
/// a `testsuite`, where the Jenkins schema (`junit-10.xsd`) allows it.
fn counts(suites: &[&Suite], skipped: bool) -> String {
    let sum = |element: Option<&str>| suites.iter().map(|s| s.count(element)).sum::<usize>();
    let mut counts = format!(
        "tests=\"{}\" failures=\"{}\" errors=\"{}\"",
        sum(None),
        sum(Some("failure")),
        sum(Some("error")),
    );
    if skipped {
        let _ = write!(counts, " skipped=\"{}\"", sum(Some("skipped")));
    }
    counts
}

/// The clauses the codes `codes` cite, as a failure's message begins:
/// `RT-TOOL-3 ¶1, RT-TOOL-2`; `errored` for an error owed an outcome.
fn cited(codes: &[String]) -> String {
    let mut cited: Vec<String> = Vec::new();
    for code in codes {
        let clause = match Code::of_name(code) {
            Some(c) => c.clause().to_string(),
            None => code.clone(),
        };
        if !cited.contains(&clause) {
            cited.push(clause);
        }
    }
    cited.join(", ")
}

/// A counterexample as the text of a `failure`, its case called `case`
/// (`minimal case`, or `case` for a pinned vector, which is not shrunk).
fn example_text(x: &Example, case: &str) -> String {
    let mut text = x.reason.join("\n");
    let codes = x.codes_text();
    if !codes.is_empty() {
        let _ = write!(text, "\ncodes: {codes}");
    }
    let case = match x.shrink_end.note() {
        Some(note) => {
            let _ = write!(text, "\nthe case: {note}");
            "case:"
        }
        None => case,
    };
    let lines = |case: &str, c: &Value, e: &Value, o: &Value| {
        format!(
            "{case:<13} {}\nexpected:     {}\nobserved:     {}\n",
            json(c),
            json(e),
            json(o)
        )
    };
    // A sibling that showed it is the request that did: first, as sent;
    // the case it was built from after it, as context.
    match &x.sibling {
        Some(s) => {
            let _ = write!(
                text,
                "\n\nshown on its {} sibling ({}), as sent:\n{}the case it was built from (the one to --replay: diff builds its siblings again):\n{}",
                s.name,
                s.what,
                lines(case, &s.case, &s.expected, &s.observed),
                lines("case:", &x.case, &x.expected, &x.observed)
            );
        }
        None => {
            let _ = write!(
                text,
                "\n\n{}",
                lines(case, &x.case, &x.expected, &x.observed)
            );
        }
    }
    text
}

/// The run's JUnit XML: a suite of the clauses (and of the process, when
/// it broke), and one of the pinned vectors.
pub fn junit(run: &Run) -> String {
    let said = &run.said;
    let who = run.implementation();
    let mut clauses = Suite {
        name: format!("{}: {who}", said.rule),
        properties: properties(said, &who),
        cases: Vec::new(),
    };
    clauses.cases.extend(process_case(run));
    clauses.cases.extend(clause_cases(said));
    let vectors = Suite {
        name: format!("{} pinned vectors: {who}", said.rule),
        properties: Vec::new(),
        cases: run.vectors.iter().map(vector_case).collect(),
    };
    let mut suites = vec![&clauses];
    if !vectors.cases.is_empty() {
        suites.push(&vectors);
    }
    xml(&format!("{} conformance: {who}", said.rule), &suites)
}

/// The provenance of a run, as the clauses' suite's properties.
fn properties(said: &Said, who: &str) -> Vec<(&'static str, String)> {
    vec![
        ("rule", said.rule.clone()),
        ("spec_version", said.spec_version.clone()),
        ("rule_hash", said.rule_hash.clone()),
        ("oracle", said.oracle.clone()),
        ("implementation", who.to_owned()),
        ("reading", said.reading.clone()),
        ("strict_order", said.strict_order.to_string()),
        ("seed", said.seed.to_string()),
        ("cases", said.cases.to_string()),
        ("requests", said.requests.to_string()),
        ("reproduce", said.reproduce.clone()),
    ]
}

/// When the implementation's process broke: an `error`, typed by its code.
fn process_case(run: &Run) -> Option<TestCase> {
    let why = run.broken.as_ref()?;
    let mut text = format!("{}\n", run.no_standing(str::to_owned).unwrap_or_default());
    if let Some(case) = &run.broken_case {
        let _ = writeln!(text, "the case: {}", json(case));
    }
    Some(TestCase {
        classname: "rt-tool-3.process",
        name: "the implementation's process answers the protocol".into(),
        outcome: Outcome::Not {
            element: "error",
            message: why.clone(),
            kind: run
                .broken_code
                .clone()
                .unwrap_or_else(|| "process-fault".into()),
            text,
        },
        out: None,
    })
}

/// A test case per clause, and one for the outcomes owed; a run not judged
/// in full has each clause `skipped`, claiming nothing.
fn clause_cases(said: &Said) -> Vec<TestCase> {
    if !said.complete {
        return crate::judge::Clause::ALL
            .into_iter()
            .map(|c| TestCase {
                classname: "rt-tool-3.clauses",
                name: format!("{c}: {}", c.title()),
                outcome: Outcome::Not {
                    element: "skipped",
                    message: "not judged: the run ended on a fault of the implementation's process, and claims nothing".into(),
                    kind: String::new(),
                    text: String::new(),
                },
                out: None,
            })
            .collect();
    }
    let mut cases: Vec<TestCase> = said
        .clauses
        .iter()
        .map(|c| TestCase {
            classname: "rt-tool-3.clauses",
            name: format!("{}: {}", c.clause, c.title),
            outcome: clause_outcome(c),
            out: Some(format!(
                "{}: {} judged cases bore on it",
                c.status.text(),
                c.cases
            )),
        })
        .collect();
    cases.push(TestCase {
        classname: "rt-tool-3.clauses",
        name: "an outcome for every case that owes one".into(),
        outcome: match &said.errored {
            Some(x) => Outcome::Not {
                element: "failure",
                message: "errored on a case it owed an outcome for".into(),
                kind: "errored".into(),
                text: example_text(x, "minimal case:"),
            },
            None => Outcome::Passed,
        },
        out: None,
    });
    cases
}

/// How a clause's test case ends: passed when met, `skipped` when not
/// exercised, else a `failure` typed by its first finding's code.
fn clause_outcome(c: &ClauseSaid) -> Outcome {
    match (c.status, &c.counterexample) {
        (Status::NotMet, Some(x)) => Outcome::Not {
            element: "failure",
            message: format!(
                "{}: {}",
                c.clause,
                x.reason.first().map_or("not met", String::as_str)
            ),
            // The first finding's code, which CI panels group by.
            kind: x
                .codes
                .first()
                .filter(|c| !c.is_empty())
                .cloned()
                .unwrap_or_else(|| c.clause.id().into()),
            text: example_text(x, "minimal case:"),
        },
        (Status::NotMet, None) => Outcome::Not {
            element: "failure",
            message: format!("{}: not met", c.clause),
            kind: c.clause.id().into(),
            text: String::new(),
        },
        (Status::NotExercised, _) => Outcome::Not {
            element: "skipped",
            message: "not exercised: no judged case bore on it".into(),
            kind: String::new(),
            text: String::new(),
        },
        (Status::NotShown, _) => Outcome::Not {
            element: "failure",
            message: format!(
                "{}: not shown: the implementation skipped every case that bore on it ({})",
                c.clause, c.skipped
            ),
            kind: "not-shown".into(),
            text: String::new(),
        },
        (Status::Met, _) => Outcome::Passed,
    }
}

/// A failed pinned vector's message: the clauses its codes cite, then its
/// first sentence: `RT-TOOL-3 ¶1: tool_artifacts[0] carries …`.
fn vector_message(v: &Pinned) -> String {
    let said = v
        .example
        .as_ref()
        .and_then(|x| x.reason.first().cloned())
        .unwrap_or_else(|| format!("{} diverged from the reference outcome", v.name));
    match cited(&v.codes) {
        cite if cite.is_empty() => said,
        cite => format!("{cite}: {said}"),
    }
}

/// A pinned vector's test case.
fn vector_case(v: &Pinned) -> TestCase {
    let outcome = match v.result {
        PinnedResult::Passed => Outcome::Passed,
        PinnedResult::Failed => Outcome::Not {
            element: "failure",
            message: vector_message(v),
            // Its first finding's code, which CI panels group by.
            kind: v.codes.first().cloned().unwrap_or_else(|| "vector".into()),
            text: match &v.example {
                Some(x) => example_text(x, "case:"),
                None => "It showed no clause an earlier case had not: the clauses' test cases carry the minimal counterexamples, and the --save file every divergence.".into(),
            },
        },
        PinnedResult::Skipped => Outcome::Not {
            element: "failure",
            message: format!(
                "{} was skipped: every implementation owes each pinned vector its outcome",
                v.name
            ),
            kind: "vector-skipped".into(),
            text: String::new(),
        },
        PinnedResult::NotJudged => Outcome::Not {
            element: "skipped",
            message: "not judged: the run ended on a fault of the implementation's process"
                .into(),
            kind: String::new(),
            text: String::new(),
        },
    };
    TestCase {
        classname: "rt-tool-3.vectors",
        name: v.name.clone(),
        outcome,
        out: None,
    }
}

/// The XML of `suites` under one `testsuites` named `name`.
fn xml(name: &str, suites: &[&Suite]) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" {}>",
        markup_attr(name),
        counts(suites, false)
    );
    for (id, suite) in suites.iter().enumerate() {
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" id=\"{id}\" {}>",
            markup_attr(&suite.name),
            counts(&[suite], true)
        );
        if !suite.properties.is_empty() {
            xml.push_str("    <properties>\n");
            for (name, value) in &suite.properties {
                let _ = writeln!(
                    xml,
                    "      <property name=\"{name}\" value=\"{}\"/>",
                    markup_attr(value)
                );
            }
            xml.push_str("    </properties>\n");
        }
        for case in &suite.cases {
            write_case(&mut xml, case);
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn write_case(xml: &mut String, case: &TestCase) {
    let _ = write!(
        xml,
        "    <testcase classname=\"{}\" name=\"{}\">",
        case.classname,
        markup_attr(&case.name)
    );
    match &case.outcome {
        Outcome::Passed => {}
        Outcome::Not {
            element,
            message,
            kind,
            text,
        } => {
            let _ = write!(
                xml,
                "\n      <{element} message=\"{}\"",
                markup_attr(message)
            );
            if !kind.is_empty() {
                let _ = write!(xml, " type=\"{}\"", markup_attr(kind));
            }
            if text.is_empty() {
                xml.push_str("/>");
            } else {
                let _ = write!(xml, ">{}</{element}>", markup(text));
            }
        }
    }
    if let Some(out) = &case.out {
        let _ = write!(xml, "\n      <system-out>{}</system-out>", markup(out));
    }
    xml.push_str("\n    </testcase>\n");
}
