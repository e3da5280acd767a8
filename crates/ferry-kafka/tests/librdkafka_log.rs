//! librdkafka's own log lines reach the process's log: `librdkafka.debug` (passed through to
//! librdkafka unchanged) would otherwise show nothing. Needs no broker.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferry_kafka::producer::AckingProducer;
use ferry_kafka::rdkafka::ClientConfig;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_client_s_debug_lines_are_logged_under_the_librdkafka_target() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let mut config = ClientConfig::new();
    // Nothing listens there; librdkafka logs its start-up before it connects anywhere.
    config
        .set("bootstrap.servers", "127.0.0.1:9")
        .set("debug", "generic");
    let (_producer, _acks) = AckingProducer::new(&config).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
        if text
            .lines()
            .any(|l| l.contains("librdkafka") && l.contains("INIT"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no librdkafka INIT line was logged; the log held:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
