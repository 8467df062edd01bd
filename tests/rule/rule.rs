//! The rule's text, pinned: the specification's `rule_hash` recomputed from
//! the copy of RT-TOOL-3 shipped in `src/RT-TOOL-3.md`, by the
//! specification's own method, and every quotation of the rule in the
//! source is that text.

use sha2::{Digest, Sha256};

/// The rule's normative paragraphs, in order, as the page states them: the
/// numbered items of the blockquote under "## The rule", each without its
/// item number, its lines joined.
fn paragraphs(page: &str) -> Vec<String> {
    let rule = page
        .split("## The rule")
        .nth(1)
        .expect("a section \"The rule\"");
    let mut items: Vec<String> = Vec::new();
    for line in rule.lines() {
        if line.starts_with("## ") {
            break;
        }
        let Some(text) = line.strip_prefix('>') else {
            continue;
        };
        let text = text.trim();
        let numbered = text
            .split_once(". ")
            .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        match numbered {
            Some((_, rest)) => items.push(rest.to_owned()),
            None if text.is_empty() || text.starts_with("**Normative.**") => {}
            None => {
                let last = items.last_mut().expect("text after an item");
                last.push(' ');
                last.push_str(text);
            }
        }
    }
    items
}

/// Whitespace collapsed to single spaces, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_rule_hash_is_the_specifications_hash_of_the_shipped_text() {
    let items = paragraphs(rt_tool_3::RULE_TEXT);
    assert_eq!(items.len(), 4, "RT-TOOL-3 has four paragraphs: {items:#?}");
    assert!(items[0].starts_with("A node that invokes tools surfaces every call's artifacts"));
    assert_eq!(items[1], "That port is not exposed by default.");
    let normative = collapse(&items.join(" "));
    let digest = Sha256::digest(normative.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(&hex[..12], rt_tool_3::RULE_HASH);
    assert_eq!(rt_tool_3::RULE_HASH, "f4664b813918");
}

#[test]
fn the_shipped_text_names_its_source_and_licence() {
    let page = rt_tool_3::RULE_TEXT;
    assert!(page.contains("id: RT-TOOL-3"));
    assert!(page.contains("licence: CC BY 4.0"));
    assert!(page.contains(&format!(
        "specification: FlowDrop Workflow Specification {}",
        rt_tool_3::SPEC_VERSION
    )));
    assert!(page.contains("source: https://flowdrop.io/spec/rules/rt-tool/rt-tool-3"));
}

/// Every place the source quotes the rule (`//! > 1. …` in doc comments,
/// `> 1. …` in the README) quotes exactly the shipped paragraphs.
#[test]
fn every_quotation_of_the_rule_is_the_shipped_text() {
    let expected: Vec<String> = paragraphs(rt_tool_3::RULE_TEXT)
        .iter()
        .map(|p| collapse(p))
        .collect();
    let root = env!("CARGO_MANIFEST_DIR");
    for (file, prefix) in [
        ("src/lib.rs", "//! >"),
        ("src/model.rs", "//! >"),
        ("README.md", ">"),
    ] {
        let text = std::fs::read_to_string(format!("{root}/{file}")).expect("a source file");
        let quoted: String = text
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(|l| format!("> {}\n", l.trim()))
            .collect();
        let page = format!("## The rule\n{quoted}");
        let found: Vec<String> = paragraphs(&page).iter().map(|p| collapse(p)).collect();
        assert_eq!(found, expected, "{file} misquotes RT-TOOL-3");
    }
}
