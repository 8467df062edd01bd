//! The run as the endpoint JSON a badge service reads (shields.io's
//! `endpoint` badge): `{"schemaVersion": 1, "label": "RT-TOOL-3",
//! "message": "¶1 ¶2 ¶3 ¶4 met", "color": "brightgreen"}`.
//!
//! The message says which paragraphs of RT-TOOL-3 are met, which are not,
//! and which were not exercised, and names any other clause not met; it is
//! made of clause names and fixed words only, never of anything the
//! implementation said. Green when the run conforms and every paragraph was
//! exercised, yellow when one was not, red when a clause is not met or an
//! owed outcome was not given, grey when nothing is claimed.

use serde::Serialize;

use super::{short, Run};
use crate::judge::Clause;
use crate::standing::Status;

/// The endpoint JSON's fields.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Endpoint {
    schema_version: u8,
    label: String,
    message: String,
    color: &'static str,
}

/// The run's badge, as endpoint JSON.
pub fn badge(run: &Run) -> String {
    let said = &run.said;
    let paragraphs = [
        Clause::KeyByKey,
        Clause::NotExposedByDefault,
        Clause::ProseFromData,
        Clause::DeliveryRegardless,
    ];
    let (message, color) = if !said.complete || run.broken.is_some() {
        ("no standing: the process broke".to_owned(), "lightgrey")
    } else {
        let with = |status: Status, of: &dyn Fn(Clause) -> bool| {
            said.clauses
                .iter()
                .filter(|c| c.status == status && of(c.clause))
                .map(|c| short(c.clause))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let paragraph = |c: Clause| paragraphs.contains(&c);
        let mut parts = Vec::new();
        for (status, words) in [
            (Status::Met, "met"),
            (Status::NotMet, "not met"),
            (Status::NotExercised, "not exercised"),
            (Status::NotShown, "not shown"),
        ] {
            let named = with(status, &paragraph);
            if !named.is_empty() {
                parts.push(format!("{named} {words}"));
            }
        }
        let others = with(Status::NotMet, &|c| !paragraph(c));
        if !others.is_empty() {
            parts.push(format!("{others} not met"));
        }
        if said.errored.is_some() {
            parts.push("errored on an owed outcome".into());
        }
        if !said.vectors_skipped.is_empty() {
            parts.push(format!(
                "{} pinned vectors skipped",
                said.vectors_skipped.len()
            ));
        }
        let failing = said.errored.is_some()
            || !said.vectors_skipped.is_empty()
            || said
                .clauses
                .iter()
                .any(|c| matches!(c.status, Status::NotMet | Status::NotShown));
        let color = if failing {
            "red"
        } else if with(Status::NotExercised, &paragraph).is_empty() {
            "brightgreen"
        } else {
            "yellow"
        };
        (parts.join(", "), color)
    };
    let endpoint = Endpoint {
        schema_version: 1,
        label: said.rule.clone(),
        message,
        color,
    };
    let mut text = serde_json::to_string_pretty(&endpoint).unwrap_or_default();
    text.push('\n');
    text
}
