//! Records the commit Ferry is built from, for `GET /` (unknown outside a git checkout).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=../../.git/HEAD");
    println!("cargo:rerun-if-changed=../../.git/refs/heads");
    println!("cargo:rerun-if-env-changed=FERRY_GIT_COMMIT");
    if std::env::var_os("FERRY_GIT_COMMIT").is_some() {
        return;
    }
    let commit = Command::new("git")
        .args(["rev-parse", "--short=16", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=FERRY_GIT_COMMIT={commit}");
}
