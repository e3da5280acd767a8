//! Link options of the `ferry` binary that keep a worker's resident memory small.
//!
//! - `startup-order.txt` (made by `scripts/startup-order`) lists the functions a worker runs when
//!   it starts, idles and runs the FileStream connectors; the linker places them first and
//!   together, so they fill a few hundred pages of `.text` instead of touching pages all over its
//!   13 MB (each touched page also maps its neighbours through the kernel's fault-around).
//!   The list's names carry hashes of their crates' builds, which change with any dependency;
//!   `startup-link`, the workspace's linker command (`.cargo/config.toml`), matches them to the
//!   binary's names without the hashes. Names missing from the binary are skipped, so a list
//!   that misses new functions only packs less.
//! - Packed relative relocations (DT_RELR): the loader reads a few kilobytes of relocations
//!   instead of the 850 KB a position-independent binary has in `.rela.dyn`. Needs glibc 2.36 or
//!   later where the binary runs.
//!
//! - `--wrap=curl_global_init`: librdkafka's eager initialisation of libcurl, and with it of
//!   OpenSSL, goes to `src/curl_init.rs` and is left to libcurl's first use (about 0.8 MiB).
//! - `--wrap=sasl_client_init --wrap=sasl_client_new`: the same for Cyrus SASL and its plugins,
//!   left to the first GSSAPI connection (`src/sasl_init.rs`, about 0.6 MiB).
//!
//! The first two are given only where rustc links with its own lld: x86_64 Linux from Rust 1.90
//! on, with no linker of the user's configured but `startup-link` (GNU ld has no symbol ordering
//! file). The wraps are given on every Linux target (GNU ld and lld both have them).
//! `FERRY_DEFAULT_LINK=1` at build time gives the default link.

fn main() {
    println!("cargo:rerun-if-changed=startup-order.txt");
    println!("cargo:rerun-if-env-changed=FERRY_DEFAULT_LINK");
    // The wrappers' modules are compiled only where the wraps are given: src/sasl_init.rs calls
    // the real functions by the `__real_` names that only `--wrap` defines.
    println!("cargo::rustc-check-cfg=cfg(ferry_wrapped_link)");
    if std::env::var_os("FERRY_DEFAULT_LINK").is_some() {
        return;
    }
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cfg=ferry_wrapped_link");
        for wrapped in ["curl_global_init", "sasl_client_init", "sasl_client_new"] {
            println!("cargo:rustc-link-arg-bins=-Wl,--wrap={wrapped}");
        }
    }
    if !links_with_rust_lld() {
        return;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={dir}/startup-order.txt");
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
}

fn links_with_rust_lld() -> bool {
    let env = |name| std::env::var(name).unwrap_or_default();
    if env("TARGET") != "x86_64-unknown-linux-gnu"
        || !linker_is_cc_or_startup_link()
        || env("CARGO_ENCODED_RUSTFLAGS").contains("link")
    {
        return false;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    let minor = version
        .lines()
        .find_map(|line| line.strip_prefix("release: 1."))
        .and_then(|rest| rest.split('.').next()?.parse::<u32>().ok());
    minor.is_some_and(|minor| minor >= 90)
}

/// No linker configured (rustc calls cc), or the workspace's `startup-link`
/// (`.cargo/config.toml`), which calls cc and matches the startup order to the binary's names.
fn linker_is_cc_or_startup_link() -> bool {
    let Some(linker) = std::env::var_os("RUSTC_LINKER") else {
        return true;
    };
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let ours = std::path::Path::new(&dir).join("startup-link");
    std::fs::canonicalize(linker).ok() == std::fs::canonicalize(ours).ok()
}
