//! A panicking task, run by the real worker and herder, shows FAILED with its trace in
//! `GET /connectors/{c}/status` while the worker and another connector carry on.

mod support;

use support::worker;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_task_is_failed_with_its_trace_and_the_worker_carries_on() {
    let w = worker(&[]);
    w.create("panicky", "test.PanickingSourceConnector", "")
        .await;
    w.create("idle", "IdleSource", "").await;

    let failed = w
        .wait_status("panicky", "the panicking task to fail", |s| {
            s["tasks"][0]["state"] == "FAILED"
        })
        .await;
    let trace = failed["tasks"][0]["trace"].as_str().unwrap();
    assert!(trace.contains("the test task broke on purpose"), "{trace}");
    assert_eq!(failed["tasks"][0]["worker_id"], "test-worker:8083");
    assert_eq!(failed["connector"]["state"], "RUNNING");

    let idle = w
        .wait_status("idle", "the idle task to run", |s| {
            s["tasks"][0]["state"] == "RUNNING"
        })
        .await;
    assert_eq!(idle["connector"]["state"], "RUNNING");
    // The worker still takes new work after the panic.
    w.create("later", "IdleSource", "").await;
    w.wait_status("later", "the new connector's task", |s| {
        s["tasks"][0]["state"] == "RUNNING"
    })
    .await;
    w.herder.stop().await;
}
