//! Link options of the `ferry` binary that keep a worker's resident memory small.
//!
//! - `startup-order.txt` (made by `scripts/startup-order`) lists the functions a worker runs when
//!   it starts, idles and runs the FileStream connectors; the linker places them first and
//!   together, so they fill a few hundred pages of `.text` instead of touching pages all over its
//!   13 MB (each touched page also maps its neighbours through the kernel's fault-around).
//!   Names missing from the binary are skipped, so a stale list only packs less.
//! - Packed relative relocations (DT_RELR): the loader reads a few kilobytes of relocations
//!   instead of the 850 KB a position-independent binary has in `.rela.dyn`. Needs glibc 2.36 or
//!   later where the binary runs.
//!
//! Both are options of LLVM's lld, which rustc uses to link on x86_64 Linux; other targets and
//! linkers get the default link.

fn main() {
    println!("cargo:rerun-if-changed=startup-order.txt");
    println!("cargo:rerun-if-env-changed=FERRY_DEFAULT_LINK");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target != "x86_64-unknown-linux-gnu" || std::env::var_os("FERRY_DEFAULT_LINK").is_some() {
        return;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={dir}/startup-order.txt");
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
}
