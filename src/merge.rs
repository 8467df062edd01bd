//! One campaign's shards joined: the `--json` reports (or final `--save`
//! files) of `diff --shard K/N` runs merged into the report, and so the
//! standing, that one run over the whole stream gives.
//!
//! Each shard takes its divergences in its own stream order, keeping one
//! whose clause ids are not all among those of the shard's earlier ones.
//! The whole run keeps one whose ids are not all among those of *every*
//! earlier case; and the union of the ids of a shard's kept divergences up
//! to a position is the union of the ids of all its cases up to there. So
//! every divergence the whole run keeps is kept by its shard, and walking
//! the shards' divergences in stream order with the union of the ids of
//! all earlier ones keeps exactly the whole run's. Each was shrunk by its
//! shard as the whole run shrinks it (shrinking depends on the case alone,
//! unless its time budget ran out, which its `shrink_end` says);
//! the requests spent shrinking those the whole run would not have kept are
//! taken off, so even the request count is the whole run's.
//!
//! Runs that would make the union meaningless are refused, with one line:
//! another rule, text, oracle version, reading, seed, campaign (cases or
//! replays) or implementation, a run written while it went on, a shard
//! given twice, or one missing.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;

use crate::diff::{
    Campaign, Divergence, FaultReport, Report, Shard, VectorsRun, Warning, WARNED_MAX,
};
use crate::judge::{Options, ProseMode};
use crate::tally::Tally;

/// A shard's report as read back: what [`Report`] writes.
#[derive(Deserialize)]
struct Part {
    rule: String,
    spec_version: String,
    rule_hash: String,
    oracle: String,
    reading: ProseMode,
    strict_order: bool,
    #[serde(deserialize_with = "crate::wire::value")]
    implementation: Value,
    seed: u64,
    campaign: Campaign,
    complete: bool,
    cases: u64,
    replayed: u64,
    vectors: VectorsRun,
    requests: u64,
    skipped: u64,
    warnings: u64,
    #[serde(default)]
    warned: Vec<Warning>,
    divergences: Vec<Divergence>,
    fault: Option<FaultReport>,
    tally: Tally,
    #[serde(default)]
    skipped_tally: Tally,
}

/// Merges the shards' reports, each given as its name and its bytes, into
/// the report of the whole campaign; or says in one line why they cannot be.
pub fn merge(files: &[(String, Vec<u8>)]) -> Result<Report, String> {
    let mut parts: Vec<(&str, Part)> = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        // A lone surrogate a reply held, as this process marks one; within
        // the oracle's nesting bound, as every document is read (a report
        // holds cases, and serde_json's own bound is 128 levels).
        let marked = crate::wire::with_lone_surrogates_marked(bytes);
        let bytes = marked.as_deref().unwrap_or(bytes);
        let part: Part = crate::wire::parse(bytes).map_err(|e| {
            format!(
                "{name} is not the --json report or --save file of a diff run of this oracle: {e}"
            )
        })?;
        check_alone(name, &part)?;
        if let Some((first, one)) = parts.first() {
            check_together(first, one, name, &part)?;
        }
        parts.push((name, part));
    }
    let Some((_, first)) = parts.first() else {
        return Err("merge needs the reports of a campaign's shards".into());
    };
    let count = first.campaign.shard.count;
    let mut seen: Vec<Option<&str>> = vec![None; count as usize];
    for (name, part) in &parts {
        let slot = &mut seen[(part.campaign.shard.index - 1) as usize];
        if let Some(other) = slot {
            return Err(format!(
                "{other} and {name} are both shard {}: each shard once",
                part.campaign.shard
            ));
        }
        *slot = Some(name);
    }
    if let Some(missing) = seen.iter().position(Option::is_none) {
        return Err(format!(
            "shard {}/{count} is missing: a merged standing covers the whole campaign",
            missing + 1
        ));
    }
    Ok(join(parts.into_iter().map(|(_, p)| p).collect()))
}

/// What one report must be to be merged at all.
fn check_alone(name: &str, part: &Part) -> Result<(), String> {
    let ours = crate::provenance();
    let theirs = (
        &*part.rule,
        &*part.spec_version,
        &*part.rule_hash,
        &*part.oracle,
    );
    if theirs != (ours.rule, ours.spec_version, ours.rule_hash, &*ours.oracle) {
        return Err(format!(
            "{name} judged {} (FlowDrop {}, rule_hash {}) with {}; this is {ours}: merge with the oracle that ran the shards",
            part.rule, part.spec_version, part.rule_hash, part.oracle
        ));
    }
    if !part.complete {
        return Err(format!(
            "{name} was written while its run went on (killed, or still running): merge finished runs"
        ));
    }
    let Shard { index, count } = part.campaign.shard;
    if index == 0 || index > count {
        return Err(format!(
            "{name} names shard {index}/{count}, which cannot be"
        ));
    }
    Ok(())
}

/// What two reports must share to be shards of one campaign.
fn check_together(a_name: &str, a: &Part, b_name: &str, b: &Part) -> Result<(), String> {
    let differ = |what: &str, x: String, y: String| {
        Err(format!(
            "{a_name} and {b_name} are not shards of one campaign: {what} {x} and {y}"
        ))
    };
    if a.reading != b.reading || a.strict_order != b.strict_order {
        let r = |p: &Part| {
            format!(
                "{}{}",
                p.reading.name(),
                if p.strict_order {
                    " --strict-order"
                } else {
                    ""
                }
            )
        };
        return differ("reading", r(a), r(b));
    }
    if a.seed != b.seed {
        return differ("seed", a.seed.to_string(), b.seed.to_string());
    }
    if a.campaign.generated != b.campaign.generated {
        let g = |p: &Part| format!("--cases {}", p.campaign.generated);
        return differ("cases", g(a), g(b));
    }
    if (a.campaign.fixed, &a.campaign.fixed_digest) != (b.campaign.fixed, &b.campaign.fixed_digest)
    {
        let f = |p: &Part| format!("{} ({})", p.campaign.fixed, p.campaign.fixed_digest);
        return differ("fixed cases (pinned vectors and replays)", f(a), f(b));
    }
    if a.campaign.shard.count != b.campaign.shard.count {
        let s = |p: &Part| format!("{} ways", p.campaign.shard.count);
        return differ("split", s(a), s(b));
    }
    if a.implementation != b.implementation {
        return differ(
            "implementation",
            a.implementation.to_string(),
            b.implementation.to_string(),
        );
    }
    Ok(())
}

/// The whole campaign's report from its checked shards.
fn join(parts: Vec<Part>) -> Report {
    let first = &parts[0];
    let options = Options {
        prose: first.reading,
        strict_order: first.strict_order,
        siblings: true,
    };
    let campaign = Campaign {
        shard: Shard::WHOLE,
        ..first.campaign.clone()
    };
    let mut report = Report::empty(options, first.implementation.clone(), first.seed, campaign);
    report.complete = true;
    let mut failed = Vec::new();
    let mut skipped = Vec::new();
    let mut divergences = Vec::new();
    let mut faults = Vec::new();
    let mut warned = Vec::new();
    for part in parts {
        report.cases += part.cases;
        report.replayed += part.replayed;
        report.requests += part.requests;
        report.skipped += part.skipped;
        report.warnings += part.warnings;
        warned.extend(part.warned);
        report.tally.add(&part.tally);
        report.skipped_tally.add(&part.skipped_tally);
        report.vectors.run += part.vectors.run;
        skipped.extend(
            part.vectors
                .skipped_positions
                .into_iter()
                .zip(part.vectors.skipped),
        );
        // A report of an oracle before codes has none: each vector's empty.
        let mut codes = part.vectors.failed_codes;
        codes.resize(part.vectors.failed.len(), Vec::new());
        failed.extend(
            part.vectors
                .failed_positions
                .into_iter()
                .zip(part.vectors.failed.into_iter().zip(codes)),
        );
        divergences.extend(part.divergences);
        faults.extend(part.fault);
    }
    warned.sort_by_key(|w: &Warning| w.position);
    warned.truncate(WARNED_MAX);
    report.warned = warned;
    failed.sort_by_key(|(position, _)| *position);
    let (positions, failed): (Vec<u64>, Vec<(String, Vec<String>)>) = failed.into_iter().unzip();
    report.vectors.failed_positions = positions;
    (report.vectors.failed, report.vectors.failed_codes) = failed.into_iter().unzip();
    skipped.sort_by_key(|(position, _)| *position);
    (report.vectors.skipped_positions, report.vectors.skipped) = skipped.into_iter().unzip();
    report.fault = faults.into_iter().min_by_key(|f| f.position);
    divergences.sort_by_key(|d| d.position);
    let mut known = BTreeSet::new();
    for mut d in divergences {
        if d.signature.is_subset(&known) {
            report.requests -= d.shrink_requests;
            continue;
        }
        known.extend(d.signature.iter().cloned());
        for v in d.found.iter_mut().chain(&mut d.minimal) {
            v.cites = v.clauses.iter().map(|c| c.cite()).collect();
        }
        report.divergences.push(d);
    }
    report
}
