//! What the README promises a newcomer, held to the code: what each
//! sibling is, what to install, the reference rendering `--prose exact`
//! demands, and the changelog kept apart from the guide.

const README: &str = include_str!("../../README.md");

/// Each sibling a report names has a line of its own in the README's list
/// of them, saying what it is and when it is sent.
#[test]
fn the_readme_says_what_each_sibling_is() {
    let items: Vec<&str> = README.lines().filter(|l| l.starts_with("- `")).collect();
    let mut names = 0;
    for name in rt_tool_3::diff::sibling_names() {
        names += 1;
        let item = items
            .iter()
            .find(|l| l.contains(&format!("`{name}`")))
            .unwrap_or_else(|| panic!("no item of the README says what the {name} sibling is"));
        assert!(
            item.contains(", when ") || item.contains("with every case"),
            "{item}"
        );
    }
    assert_eq!(names, 5);
}

/// The README states the Rust the crate builds with (`rust-version`) and
/// python3, before the two commands.
#[test]
fn the_readme_states_the_prerequisites() {
    let manifest = include_str!("../../Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("Cargo.toml has a rust-version");
    let before = &README[..README.find("```sh").expect("the two commands")];
    assert!(before.contains(&format!("Rust {version}")), "{before}");
    assert!(before.contains("`python3`"), "{before}");
}

/// Every example the README gives of the reference rendering (`1e05` is
/// `1e+05`) is what `verdict` renders, inside a list; and what it says
/// stays unescaped stays so.
#[test]
fn the_reference_rendering_is_as_the_readme_says() {
    let at = README
        .find("**The reference rendering.**")
        .expect("the paragraph");
    let paragraph = &README[at..at + README[at..].find("\n\n").expect("its end")];
    let paragraph = paragraph.replace('\n', " ");
    let mut examples = 0;
    for (i, _) in paragraph.match_indices("` is `") {
        let from = paragraph[..i].rfind('`').expect("an opening tick") + 1;
        let to = i + 6 + paragraph[i + 6..].find('`').expect("a closing tick");
        let (written, rendered) = (&paragraph[from..i], &paragraph[i + 6..to]);
        assert_eq!(render(&format!("[{written}]")), format!("[{rendered}]"));
        examples += 1;
    }
    assert!(examples >= 3, "{paragraph}");
    // `/`, DEL, U+2028 and non-ASCII as they are; the controls escaped.
    assert_eq!(
        render(r#"["/\u007f\u2028é\u0001\n"]"#),
        "[\"/\u{7f}\u{2028}é\\u0001\\n\"]"
    );
}

/// The prose `verdict` gives a call whose `data` is `data`.
fn render(data: &str) -> String {
    let case = format!(
        r#"{{"calls":[{{"tool_call_id":"c1","result":{{"success":true,"data":{data}}}}}]}}"#
    );
    let mut out = Vec::new();
    rt_tool_3::verdict(case.as_bytes(), &mut out).expect("a valid case");
    let outcome: serde_json::Value = serde_json::from_slice(&out).expect("an outcome");
    outcome["messages"][0]["content"]
        .as_str()
        .expect("a prose")
        .to_owned()
}

/// The history lives in CHANGELOG.md, which the README links; the guide
/// says what the oracle does now, not since which version.
#[test]
fn the_changelog_is_kept_apart() {
    let changelog = include_str!("../../CHANGELOG.md");
    assert!(changelog.starts_with("# Changelog\n"));
    assert!(README.contains("](CHANGELOG.md)"));
    for word in ["Since 0.", "since 0.", "Until 0.", "until 0."] {
        assert!(!README.contains(word), "the README tells history: {word}");
    }
}
