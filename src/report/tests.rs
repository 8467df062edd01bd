//! Untrusted text stays text (RT-TOOL-6) in every report: hostile strings in
//! every field a run can carry (ids, types, payloads, prose, the judge's
//! sentences, the fault, the implementation's name, version and language)
//! give JUnit and a page that still parse, in which no such string became
//! markup and each reads back as written (its characters XML cannot hold
//! shown by their stand-ins), and a Markdown standing with no HTML, no
//! link, and a table of the same shape.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::{html, junit, Run};
use crate::diff::{Campaign, Report, Shard};
use crate::escape::visible;
use crate::judge::{Clause, Options};
use crate::standing::{ClauseStanding, Counterexample, Standing, Status};
use crate::wire::{Call, Case};

/// Pieces that have broken reports elsewhere: tags, comments, CDATA ends,
/// quotes, references, table pipes, line ends, controls, noncharacters,
/// script links, Markdown's own marks.
const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "</script>",
    "</td>",
    "</pre>",
    "<!--",
    "-->",
    "]]>",
    "<![CDATA[",
    "\"",
    "'",
    "&",
    "&amp;",
    "&#0;",
    "|",
    "\n",
    "\r\n",
    "\t",
    "\u{0}",
    "\u{1}",
    "\u{1b}",
    "\u{7f}",
    "\u{fffe}",
    "\u{ffff}",
    "\u{85}",
    "[x](javascript:alert(1))",
    "javascript:alert(1)",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<img src=x onerror=alert(1)>",
    "`",
    "```",
    "*_#",
    "\\",
    "    ",
    " ",
    "1. ",
    "- ",
];

fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        proptest::sample::select(HOSTILE).prop_map(str::to_owned),
        any::<String>(),
        "[a-z]{1,4}",
    ];
    proptest::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
}

/// Eleven hostile strings, one per field.
fn fields() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(hostile(), 11)
}

/// `s` as a report shows it: each character XML cannot hold as its
/// stand-in.
fn shown(s: &str) -> String {
    s.chars().map(|c| visible(c).unwrap_or(c)).collect()
}

/// `s` as the Markdown standing shows it: line ends and tabs as their
/// pictures too.
fn shown_md(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => char::from_u32(0x2400 + c as u32).unwrap_or(c),
            c => visible(c).unwrap_or(c),
        })
        .collect()
}

/// A standing of an implementation that announced hostile names, not
/// meeting ¶1 on a case full of hostile strings, with hostile sentences;
/// and the process broken with a hostile message when `broken`.
fn standing(f: &[String], broken: bool) -> (Report, Standing) {
    let case = Case {
        exposed: None,
        calls: vec![Call {
            tool_call_id: f[0].clone(),
            result: json!({"success": true, "data": f[1], "artifacts": [
                {"type": f[2], "payload": {f[3].clone(): f[4]}}]}),
        }],
    };
    let expected = crate::model::outcome(&case);
    let observed = json!({"messages": [{"tool_call_id": f[0], "content": f[4]}],
        "tool_artifacts": [{"type": f[2], "payload": {}, "tool_call_id": f[5]}], "exposed": false});
    let implementation = json!({"name": f[6], "version": f[7], "language": f[8]});
    let options = Options {
        strict_order: false,
        prose: crate::judge::ProseMode::DataOnly,
        siblings: true,
    };
    let campaign = Campaign {
        fixed: 0,
        fixed_digest: String::new(),
        generated: 10,
        shard: Shard::WHOLE,
    };
    let report = Report::empty(options, implementation, 1, campaign);
    let mut standing = Standing::of(&report);
    let example = Counterexample {
        reason: vec![f[9].clone(), f[10].clone()],
        case,
        expected,
        observed,
    };
    standing.clauses = Clause::ALL
        .into_iter()
        .map(|clause| ClauseStanding {
            clause,
            cite: clause.cite(),
            title: clause.title(),
            status: if clause == Clause::KeyByKey {
                Status::NotMet
            } else {
                Status::Met
            },
            cases: 3,
            counterexample: (clause == Clause::KeyByKey).then(|| example.clone()),
        })
        .collect();
    standing.errored = Some(example);
    if broken {
        standing.complete = false;
        standing.fault = Some(f[10].clone());
        standing.clauses.clear();
    }
    (report, standing)
}

/// Every text node under `node`, joined.
fn text_of(node: roxmltree::Node) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect()
}

/// `page` parses, and holds no script, frame, object, image, no `on…`
/// attribute, and no link but to a fragment of its own.
fn parse_page(page: &str) -> Result<roxmltree::Document<'_>, TestCaseError> {
    // The page's one DTD is `<!DOCTYPE html>`, which declares nothing.
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(page, options)
        .map_err(|e| TestCaseError::fail(format!("the page does not parse: {e}\n{page}")))?;
    let ids: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    for node in doc.descendants().filter(|n| n.is_element()) {
        let name = node.tag_name().name();
        prop_assert!(
            !["script", "iframe", "object", "embed", "img", "link", "base", "form"].contains(&name),
            "a <{name}> element on the page"
        );
        for a in node.attributes() {
            prop_assert!(
                !a.name().to_ascii_lowercase().starts_with("on"),
                "an {} attribute",
                a.name()
            );
            if a.name() == "href" {
                let target = a.value().strip_prefix('#');
                prop_assert!(
                    target.is_some_and(|t| ids.contains(&t)),
                    "a link to {:?}",
                    a.value()
                );
            }
        }
    }
    Ok(doc)
}

/// The page passes [`parse_page`] and shows each hostile string as
/// written.
fn check_page(page: &str, run: &Run, f: &[String]) -> Result<(), TestCaseError> {
    let doc = parse_page(page)?;
    let h1 = doc
        .descendants()
        .find(|n| n.has_tag_name("h1"))
        .map(text_of)
        .unwrap_or_default();
    let heading = format!(
        "RT-TOOL-3 standing: {} {} ({})",
        shown(&f[6]),
        shown(&f[7]),
        shown(&f[8])
    );
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.is_element())
        .map(text_of)
        .collect();
    prop_assert_eq!(h1, heading);
    if run.said.fault.is_none() {
        for reason in &f[9..11] {
            prop_assert!(
                texts.contains(&shown(reason)),
                "the sentence {reason:?} is not shown as written"
            );
        }
        let observed = super::json_pretty(
            &run.said.clauses[0]
                .counterexample
                .as_ref()
                .map(|x| x.observed.clone())
                .unwrap_or(Value::Null),
        );
        prop_assert!(
            texts.contains(&shown(&observed)),
            "the observed outcome is not shown as written"
        );
    } else {
        let fault = shown(&f[10]);
        prop_assert!(
            texts.iter().any(|t| t.contains(&fault)),
            "the fault is not shown as written"
        );
    }
    Ok(())
}

fn check_junit(xml: &str, f: &[String], broken: bool) -> Result<(), TestCaseError> {
    let doc = roxmltree::Document::parse(xml)
        .map_err(|e| TestCaseError::fail(format!("the JUnit does not parse: {e}\n{xml}")))?;
    let root = doc.root_element();
    prop_assert_eq!(root.tag_name().name(), "testsuites");
    let who = format!("{} {} ({})", shown(&f[6]), shown(&f[7]), shown(&f[8]));
    prop_assert_eq!(
        root.attribute("name").map(str::to_owned),
        Some(format!("RT-TOOL-3 conformance: {who}"))
    );
    if broken {
        let error = doc.descendants().find(|n| n.has_tag_name("error"));
        prop_assert_eq!(
            error
                .and_then(|e| e.attribute("message"))
                .map(str::to_owned),
            Some(shown(&f[10]))
        );
    } else {
        let failure = doc
            .descendants()
            .find(|n| n.has_tag_name("failure"))
            .ok_or_else(|| TestCaseError::fail("no failure"))?;
        prop_assert_eq!(
            failure.attribute("message").map(str::to_owned),
            Some(shown(&f[9]))
        );
        let sentences = format!("{}\n{}\n", shown(&f[9]), shown(&f[10]));
        prop_assert!(
            text_of(failure).starts_with(&sentences),
            "the sentences are not the failure's first lines"
        );
    }
    Ok(())
}

/// The Markdown standing: no HTML and no link anywhere, the heading and
/// each sentence read as written, every table row of four cells.
fn check_markdown(md: &str, f: &[String], broken: bool) -> Result<(), TestCaseError> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut texts = Vec::new();
    let mut current: Option<String> = None;
    let mut cells = 0;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => {
                return Err(TestCaseError::fail(format!(
                    "HTML in the standing: {h:?}\n{md}"
                )))
            }
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                return Err(TestCaseError::fail(format!("a link in the standing\n{md}")))
            }
            Event::Start(Tag::Heading { .. } | Tag::Item) => current = Some(String::new()),
            Event::End(TagEnd::Heading(_) | TagEnd::Item) => texts.extend(current.take()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = &mut current {
                    c.push_str(&t);
                }
            }
            Event::Start(Tag::TableRow | Tag::TableHead) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => {
                prop_assert_eq!(cells, 4, "a table row of {} cells\n{}", cells, md)
            }
            _ => {}
        }
    }
    let heading = format!(
        "RT-TOOL-3 standing: {} ({})",
        shown_md(&f[6]),
        shown_md(&f[8])
    );
    prop_assert_eq!(texts.first(), Some(&heading));
    if !broken {
        for reason in &f[9..11] {
            prop_assert!(
                texts.contains(&shown_md(reason)),
                "{reason:?} not read as written\n{md}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(crate::gen::AtomicRegressions(
            "proptest-regressions/report.txt",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn hostile_text_stays_text_in_every_report(f in fields(), broken in any::<bool>()) {
        let (report, standing) = standing(&f, broken);
        let run = Run::of(&report, &standing, None)
            .map_err(TestCaseError::fail)?;
        check_junit(&junit::junit(&run), &f, broken)?;
        check_page(&html::standing(&run), &run, &f)?;
        check_markdown(&standing.markdown(), &f, broken)?;
        let page = html::compare(&[run.clone(), run]);
        let doc = parse_page(&page)?;
        let names: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("th") && n.attribute("scope") == Some("row"))
            .map(text_of)
            .collect();
        prop_assert_eq!(names, vec![shown(&f[6]), shown(&f[6])]);
    }
}
