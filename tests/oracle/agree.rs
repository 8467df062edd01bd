//! Every output of one run says the same thing: the text for a reader,
//! `--json`, the Markdown standing, the page, JUnit, the badge and the
//! `--save` file, for a passing run, a failing one, and runs that broke
//! (a crash on a case, a line after `stop`, no `ready`, no process at all).
//! Every file asked for is written on every exit path, so nothing an
//! earlier run left on disk is still standing after it.

use std::process::Command;

use crate::support;

/// How a run ends: its exit code, and when it broke, the fault's code and
/// when it broke (`start`, `run` or `stop`).
struct Ending {
    exit: i32,
    fault: Option<(&'static str, &'static str)>,
}

/// What every output of a run says, read from the files and stdout.
struct Outputs {
    exit: Option<i32>,
    text: String,
    stderr: String,
    json: serde_json::Value,
    standing: String,
    junit: String,
    page: String,
    badge: serde_json::Value,
    save: String,
}

/// `diff --cases 20 --seed 1` against `command`, every file asked for
/// written over a stale one first: once with `--json`, once as text.
fn outputs(name: &str, command: &[&str]) -> Outputs {
    let dir = support::tempdir(&format!("agree-{name}"));
    let files = [
        "standing.md",
        "junit.xml",
        "page.html",
        "badge.json",
        "save.json",
    ];
    let run = |json: bool| {
        for f in files {
            std::fs::write(dir.join(f), "stale").expect("written");
        }
        let path = |f: &str| dir.join(f).display().to_string();
        let mut diff = Command::new(support::BIN);
        diff.args(["diff", "--cases", "20", "--seed", "1"])
            .args(["--standing", &path(files[0])])
            .args(["--junit", &path(files[1])])
            .args(["--html", &path(files[2])])
            .args(["--badge", &path(files[3])])
            .args(["--save", &path(files[4])]);
        if json {
            diff.arg("--json");
        }
        let out = diff.arg("--").args(command).output().expect("diff runs");
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect("read");
        (out, files.map(read))
    };
    let (text_run, text_files) = run(false);
    let (json_run, [standing, junit, page, badge, save]) = run(true);
    // The same files, whichever way stdout is written, but for the
    // --save file's timing (none of it is a time) and the seed-free parts.
    assert_eq!(text_files[0], standing, "{name}: the standing");
    assert_eq!(text_files[3], badge, "{name}: the badge");
    assert_eq!(text_run.status.code(), json_run.status.code(), "{name}");
    Outputs {
        exit: json_run.status.code(),
        text: String::from_utf8_lossy(&text_run.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&text_run.stderr).into_owned(),
        json: serde_json::from_slice(&json_run.stdout)
            .unwrap_or_else(|e| panic!("{name}: --json is one report: {e}")),
        standing,
        junit,
        page,
        badge: serde_json::from_str(&badge).expect("the badge is JSON"),
        save,
    }
}

/// Holds every output of `o` to `ending`, and to each other.
fn agree(name: &str, o: &Outputs, ending: &Ending) {
    assert_eq!(o.exit, Some(ending.exit), "{name}: {}", o.stderr);
    for (what, text) in [
        ("standing", &o.standing),
        ("junit", &o.junit),
        ("page", &o.page),
        ("--save file", &o.save),
    ] {
        assert_ne!(
            text, "stale",
            "{name}: the {what} of an earlier run is left"
        );
    }
    let junit = roxmltree::Document::parse(&o.junit).expect("JUnit is XML");
    let errors: Vec<_> = junit
        .descendants()
        .filter(|n| n.has_tag_name("error"))
        .collect();
    let divergences = o.json["divergences"].as_array().expect("divergences").len();
    match ending.fault {
        Some((code, phase)) => {
            assert_eq!(o.json["fault"]["code"], code, "{name}: {}", o.json["fault"]);
            assert_eq!(o.json["fault"]["phase"], phase, "{name}");
            assert_eq!(o.json["standing"]["fault_code"], code, "{name}");
            assert_eq!(o.json["standing"]["complete"], false, "{name}");
            let said = format!("({code}). Nothing is claimed.");
            assert!(o.standing.starts_with("# RT-TOOL-3 standing"), "{name}");
            assert!(
                o.standing.contains("**No standing.**"),
                "{name}: {}",
                o.standing
            );
            let said_md = format!(
                "({}). Nothing is claimed.",
                rt_tool_3::escape::markdown(code)
            );
            assert!(o.standing.contains(&said_md), "{name}: {}", o.standing);
            assert!(
                !o.standing.contains("| RT-TOOL-3 ¶1 |"),
                "{name}: {}",
                o.standing
            );
            assert!(!o.standing.contains("passed"), "{name}: {}", o.standing);
            assert!(o.text.contains("NO STANDING."), "{name}: {}", o.text);
            assert!(o.text.contains(&said), "{name}: {}", o.text);
            assert!(
                o.stderr.lines().any(|l| l.starts_with("rt-tool-3: ")),
                "{name}: {}",
                o.stderr
            );
            assert_eq!(errors.len(), 1, "{name}: {}", o.junit);
            assert_eq!(errors[0].attribute("type"), Some(code), "{name}");
            assert!(o.page.contains("No standing: the process broke"), "{name}");
            assert!(o.page.contains(&said), "{name}");
            assert_eq!(o.badge["color"], "lightgrey", "{name}: {}", o.badge);
            let save: serde_json::Value =
                serde_json::from_str(&o.save).expect("--save is written, as JSON");
            assert_eq!(save["fault"]["code"], code, "{name}");
            assert_eq!(save["fault"]["phase"], phase, "{name}");
        }
        None => {
            assert!(o.json["fault"].is_null(), "{name}: {}", o.json["fault"]);
            let save: serde_json::Value =
                serde_json::from_str(&o.save).expect("--save is written, as JSON");
            assert!(save["fault"].is_null(), "{name}");
            assert_eq!(save["divergences"], o.json["divergences"], "{name}");
            assert_eq!(o.json["standing"]["complete"], true, "{name}");
            assert!(errors.is_empty(), "{name}: {}", o.junit);
            assert!(!o.page.contains("No standing"), "{name}");
            assert!(!o.text.contains("NO STANDING"), "{name}: {}", o.text);
            assert!(!o.standing.contains("No standing"), "{name}");
            let met = o.standing.contains("| RT-TOOL-3 ¶1 | artifacts on their own port, built key by key with the call's real id | **met** |");
            assert_eq!(met, divergences == 0, "{name}: {}", o.standing);
            let green = o.badge["color"] == "brightgreen";
            assert_eq!(green, divergences == 0, "{name}: {}", o.badge);
            let failures = junit
                .descendants()
                .filter(|n| n.has_tag_name("failure"))
                .count();
            assert_eq!(failures == 0, divergences == 0, "{name}: {}", o.junit);
            assert_eq!(
                o.text.contains("no divergence\n"),
                divergences == 0,
                "{name}"
            );
        }
    }
}

#[test]
fn every_output_of_a_run_says_the_same() {
    let chatty = format!("{} serve; echo extra", support::BIN);
    let runs: [(&str, Vec<&str>, Ending); 6] = [
        (
            "passing",
            vec![support::BIN, "serve"],
            Ending {
                exit: 0,
                fault: None,
            },
        ),
        (
            "failing",
            vec![support::BIN, "serve", "--fault", "spoof-id"],
            Ending {
                exit: 1,
                fault: None,
            },
        ),
        (
            "a-line-after-stop",
            vec!["sh", "-c", &chatty],
            Ending {
                exit: 2,
                fault: Some(("extra-lines", "stop")),
            },
        ),
        (
            "no-ready",
            vec![support::BIN, "serve", "--fault", "no-start"],
            Ending {
                exit: 2,
                fault: Some(("no-ready", "start")),
            },
        ),
        (
            "cannot-start",
            vec!["/nonexistent/implementation"],
            Ending {
                exit: 2,
                fault: Some(("cannot-start", "start")),
            },
        ),
        (
            "crash",
            vec![support::BIN, "serve", "--fault", "crash"],
            Ending {
                exit: 2,
                fault: Some(("crashed", "run")),
            },
        ),
    ];
    for (name, command, ending) in &runs {
        agree(name, &outputs(name, command), ending);
    }
}
