//! Starting a distributed worker: the internal topics (created when absent), the three stores
//! read to their ends, the worker, the herder and its loop in the group.

use std::sync::Arc;
use std::time::Duration;

use ferry_group::{GroupConfig, GroupMember};
use ferry_kafka::admin::Admin;
use ferry_kafka::client_properties::ClientRole;
use ferry_runtime::plugins::Registry;
use ferry_runtime::status::StatusStore;
use ferry_runtime::worker::Worker;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::ExactlyOnceSourceSupport;
use crate::config::{DistributedConfig, CONFIG_TOPIC, OFFSET_TOPIC, STATUS_TOPIC};
use crate::herder::tick::Tick;
use crate::herder::DistributedHerder;
use crate::stores::clients::internal_client;
use crate::stores::leader_writer::LeaderWriter;
use crate::stores::offset_topics::ConnectorOffsetTopics;
use crate::stores::topics::ensure_topic;
use crate::stores::{KafkaConfigStore, KafkaOffsetStore, KafkaStatusStore, StoreError};

/// How long start-up waits for each store to read its topic.
const STORE_READ_TIMEOUT: Duration = Duration::from_secs(60);

/// A running distributed worker.
pub struct DistributedWorker {
    pub herder: Arc<DistributedHerder>,
    tick: JoinHandle<()>,
    shutdown: CancellationToken,
}

impl DistributedWorker {
    /// Stops every connector and task (committing offsets), flushes statuses, leaves the group.
    pub async fn stop(self) {
        self.shutdown.cancel();
        if let Err(error) = self.tick.await {
            tracing::error!(%error, "The herder loop ended abnormally");
        }
        self.herder.worker().stop_all().await;
    }
}

/// Everything the worker needs from the command line.
pub struct BootSettings {
    pub config: DistributedConfig,
    pub worker_id: String,
    /// The advertised REST URL, `http://host:port/`.
    pub url: String,
    pub cluster_id: String,
    pub registry: Arc<Registry>,
    /// Applies cluster-wide logger levels (KIP-976) to this worker.
    pub logger_levels: Option<crate::herder::LoggerApplier>,
}

pub async fn start(settings: BootSettings) -> Result<DistributedWorker, StoreError> {
    let BootSettings {
        config,
        worker_id,
        url,
        cluster_id,
        registry,
        logger_levels,
    } = settings;
    let base = config.client_id_base();
    let worker_config = &config.worker;
    // Before anything is created: the group membership must be able to use these settings.
    let group_security = crate::group_security::group_security(worker_config)?;
    let admin = Admin::new(&internal_client(
        worker_config,
        ClientRole::Admin,
        &format!("{base}shared-admin"),
    )?)?;
    ensure_topic(&admin, &config.offset_topic, OFFSET_TOPIC).await?;
    ensure_topic(&admin, &config.status_topic, STATUS_TOPIC).await?;
    ensure_topic(&admin, &config.config_topic, CONFIG_TOPIC).await?;

    let clients = |suffix: &str| -> Result<_, StoreError> {
        let id = format!("{base}{suffix}");
        Ok((
            internal_client(worker_config, ClientRole::Consumer, &id)?,
            internal_client(worker_config, ClientRole::Producer, &id)?,
        ))
    };
    let (consumer, producer) = clients("offsets")?;
    let offsets = Arc::new(
        KafkaOffsetStore::start(
            &config.offset_topic.name,
            &consumer,
            &producer,
            STORE_READ_TIMEOUT,
        )
        .await?,
    );
    let (consumer, producer) = clients("statuses")?;
    let statuses = Arc::new(
        KafkaStatusStore::start(
            &config.status_topic.name,
            &consumer,
            &producer,
            worker_id.clone(),
            STORE_READ_TIMEOUT,
        )
        .await?,
    );
    let (consumer, producer) = clients("configs")?;
    let (mut configs, events) = KafkaConfigStore::start(
        &config.config_topic.name,
        &consumer,
        &producer,
        STORE_READ_TIMEOUT,
    )
    .await?;
    if config.exactly_once != ExactlyOnceSourceSupport::Disabled {
        configs = configs.with_leader_writer(LeaderWriter::new(
            &config.config_topic.name,
            &config.group_id,
            &producer,
        ));
    }
    tracing::info!(
        offset = configs.snapshot().offset(),
        connectors = configs.snapshot().connectors().len(),
        "Read the config topic"
    );

    let shutdown = CancellationToken::new();
    let (reconfigure_tx, reconfigure_rx) = mpsc::unbounded_channel();
    let herder_reconfigure = reconfigure_tx.clone();
    let status_store: Arc<dyn StatusStore> = statuses.clone();
    let offset_topics = ConnectorOffsetTopics::new(
        config.worker.clone(),
        config.offset_topic.clone(),
        base.clone(),
        STORE_READ_TIMEOUT,
    );
    let worker = Arc::new(
        Worker::new(
            worker_id.clone(),
            Arc::new(config.worker.clone()),
            registry,
            offsets,
            status_store,
            shutdown.child_token(),
            reconfigure_tx,
        )
        .with_offset_topics(Arc::new(offset_topics)),
    );
    let member = GroupMember::new(GroupConfig {
        bootstrap_servers: config.worker.bootstrap_server_list(),
        group_id: config.group_id.clone(),
        client_id: config
            .worker
            .originals
            .get("client.id")
            .filter(|c| !c.is_empty())
            .cloned()
            .unwrap_or_else(|| format!("connect-{worker_id}")),
        protocol_type: "connect".to_owned(),
        session_timeout: config.session_timeout,
        rebalance_timeout: config.rebalance_timeout,
        heartbeat_interval: config.heartbeat_interval,
        request_timeout: Duration::from_secs(40),
        security: group_security,
    });
    let (herder, commands) = DistributedHerder::new(
        Arc::new(config),
        worker,
        Arc::new(configs),
        statuses,
        url,
        herder_reconfigure,
        cluster_id,
        shutdown.clone(),
        logger_levels,
    );
    // Levels set cluster-wide before this worker started apply to it too.
    for (namespace, level) in herder.configs.logger_levels() {
        herder.apply_logger_level(&namespace, &level);
    }
    let tick = Tick::new(
        herder.clone(),
        Box::new(member),
        events,
        reconfigure_rx,
        commands,
    );
    let tick = tokio::spawn(tick.run());
    Ok(DistributedWorker {
        herder,
        tick,
        shutdown,
    })
}
