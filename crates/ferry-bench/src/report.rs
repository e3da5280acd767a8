//! The results of a run: `results.json` (one entry per workload and system with median, min and
//! max), `RESULTS.md` (the same as a table with the date, machine and versions) and the table on
//! standard output.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context as _};
use serde::Serialize;

/// The systems in the table's column order, with their column headings.
pub const SYSTEMS: [(&str, &str); 3] = [
    ("ferry", "Ferry"),
    ("java", "Java Connect"),
    ("raw", "Raw client"),
];

/// One line of results.json.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    pub workload: String,
    pub system: String,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub unit: String,
    pub runs: usize,
}

/// Samples in first-seen workload order, each workload's systems in `SYSTEMS` order.
pub fn summarize(samples: &str) -> anyhow::Result<Vec<Summary>> {
    let mut order: Vec<String> = Vec::new();
    let mut values: BTreeMap<(String, String), (Vec<f64>, String)> = BTreeMap::new();
    for (n, line) in samples.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [workload, system, value, unit] = fields[..] else {
            bail!(
                "samples line {}: expected workload, system, value, unit: {line:?}",
                n + 1
            );
        };
        let value: f64 = value
            .trim()
            .parse()
            .with_context(|| format!("samples line {}: {value:?} is not a number", n + 1))?;
        if !order.iter().any(|w| w == workload) {
            order.push(workload.to_owned());
        }
        let entry = values
            .entry((workload.to_owned(), system.to_owned()))
            .or_insert_with(|| (Vec::new(), unit.to_owned()));
        entry.0.push(value);
    }
    let mut out = Vec::new();
    for workload in &order {
        let mut systems: Vec<&String> = values
            .keys()
            .filter(|(w, _)| w == workload)
            .map(|(_, s)| s)
            .collect();
        systems.sort_by_key(|s| {
            SYSTEMS
                .iter()
                .position(|(k, _)| k == s)
                .unwrap_or(usize::MAX)
        });
        for system in systems {
            let (v, unit) = &values[&(workload.clone(), system.clone())];
            out.push(Summary {
                workload: workload.clone(),
                system: system.clone(),
                median: median(v),
                min: v.iter().copied().fold(f64::INFINITY, f64::min),
                max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                unit: unit.clone(),
                runs: v.len(),
            });
        }
    }
    Ok(out)
}

pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// `1234567.8` → `1,234,568`.
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 {
        out.insert(0, '-');
    }
    out
}

fn number(x: f64, unit: &str) -> String {
    if unit == "MiB" || x.abs() < 10.0 {
        format!("{x:.1}")
    } else {
        thousands(x)
    }
}

fn cell(s: Option<&Summary>) -> String {
    match s {
        None => "–".to_owned(),
        Some(s) if s.runs > 1 => format!(
            "{} {} ({}–{})",
            number(s.median, &s.unit),
            s.unit,
            number(s.min, &s.unit),
            number(s.max, &s.unit)
        ),
        Some(s) => format!("{} {}", number(s.median, &s.unit), s.unit),
    }
}

fn ratio(a: Option<&Summary>, b: Option<&Summary>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b.median > 0.0 => format!("{:.2}×", a.median / b.median),
        _ => "–".to_owned(),
    }
}

/// The results table in Markdown.
pub fn table(summaries: &[Summary]) -> String {
    let mut out = String::from(
        "| Workload | Ferry | Java Connect | Raw client | Ferry/Java | Ferry/limit |\n|---|---|---|---|---|---|\n",
    );
    let mut workloads: Vec<&str> = Vec::new();
    for s in summaries {
        if !workloads.contains(&s.workload.as_str()) {
            workloads.push(&s.workload);
        }
    }
    for w in workloads {
        let get = |system: &str| {
            summaries
                .iter()
                .find(|s| s.workload == w && s.system == system)
        };
        let (ferry, java, raw) = (get("ferry"), get("java"), get("raw"));
        let _ = writeln!(
            out,
            "| {w} | {} | {} | {} | {} | {} |",
            cell(ferry),
            cell(java),
            cell(raw),
            ratio(ferry, java),
            ratio(ferry, raw)
        );
    }
    out
}

/// `key<TAB>value` lines; keys may repeat.
fn meta(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

pub fn markdown(summaries: &[Summary], meta: &[(String, String)]) -> String {
    let one = |key: &str| {
        meta.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("unknown")
    };
    let all = |key: &'static str| {
        meta.iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let mut out = String::from("# Ferry benchmark results\n\n");
    for label in all("label") {
        let _ = writeln!(out, "> {label}\n");
    }
    let _ = writeln!(out, "- Date: {}", one("date"));
    let _ = writeln!(out, "- Machine: {}", one("machine"));
    for v in all("version") {
        let _ = writeln!(out, "- {v}");
    }
    let _ = writeln!(out, "- Command: `{}`", one("command"));
    let _ = writeln!(out, "- {}\n", one("runs"));
    out.push_str(&table(summaries));
    out.push_str(
        "\nFerry/Java and Ferry/limit are ratios of the medians. For throughput (records/s) higher is \
         better for Ferry; for memory (MiB) and times (ms: start-up, W6 create to running and \
         failover, W11) lower is better, so a ratio below 1 favours Ferry. The limit is the raw \
         librdkafka client set as Ferry's connector clients are (producer for W1, consumer for \
         W2), the same measurement in the as-shipped and the matched rows.\n",
    );
    let workloads: Vec<&str> = all("workload").collect();
    if !workloads.is_empty() {
        out.push_str("\n## Workloads\n\n");
        for w in workloads {
            let _ = writeln!(out, "- {w}");
        }
    }
    let notes: Vec<&str> = all("note").collect();
    if !notes.is_empty() {
        out.push_str("\n## Notes\n\n");
        for n in notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    out
}

pub fn write(samples: &Path, meta_file: &Path, out: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(samples)
        .with_context(|| format!("reading {}", samples.display()))?;
    let meta_text = std::fs::read_to_string(meta_file)
        .with_context(|| format!("reading {}", meta_file.display()))?;
    let summaries = summarize(&text)?;
    let meta = meta(&meta_text);
    std::fs::create_dir_all(out)?;
    let json = serde_json::to_string_pretty(&summaries)? + "\n";
    std::fs::write(out.join("results.json"), json)?;
    std::fs::write(out.join("RESULTS.md"), markdown(&summaries, &meta))?;
    print!("{}", table(&summaries));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLES: &str = "W1 file source\tjava\t100\trecords/s\n\
                           W1 file source\tferry\t300\trecords/s\n\
                           W1 file source\tferry\t200\trecords/s\n\
                           W1 file source\tferry\t400\trecords/s\n\
                           W1 file source\traw\t500\trecords/s\n\
                           W5 startup\tferry\t20\tms\n\
                           W5 startup\tjava\t2000\tms\n";

    #[test]
    fn summarizes_median_min_max_in_column_order() {
        let s = summarize(SAMPLES).unwrap();
        let systems: Vec<(&str, &str)> = s
            .iter()
            .map(|s| (s.workload.as_str(), s.system.as_str()))
            .collect();
        assert_eq!(
            systems,
            [
                ("W1 file source", "ferry"),
                ("W1 file source", "java"),
                ("W1 file source", "raw"),
                ("W5 startup", "ferry"),
                ("W5 startup", "java")
            ]
        );
        assert_eq!(
            (s[0].median, s[0].min, s[0].max, s[0].runs),
            (300.0, 200.0, 400.0, 3)
        );
        assert_eq!(median(&[1.0, 2.0, 3.0, 10.0]), 2.5);
    }

    #[test]
    fn table_has_ratios_of_medians() {
        let t = table(&summarize(SAMPLES).unwrap());
        assert!(t.contains("| W1 file source | 300 records/s (200–400) | 100 records/s | 500 records/s | 3.00× | 0.60× |"), "{t}");
        assert!(
            t.contains("| W5 startup | 20 ms | 2,000 ms | – | 0.01× | – |"),
            "{t}"
        );
    }

    #[test]
    fn rejects_malformed_samples() {
        assert!(summarize("W1\tferry\tfast\trecords/s\n").is_err());
        assert!(summarize("W1\tferry\n").is_err());
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(1_234_567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(number(123.456, "MiB"), "123.5");
    }
}
