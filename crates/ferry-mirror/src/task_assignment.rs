//! How the connectors split their work between tasks, in Java's encodings: a source task's
//! partitions in `task.assigned.partitions` (`topic-partition`, round-robin over the known
//! partitions), a checkpoint task's groups in `task.assigned.groups` (contiguous chunks, as
//! Kafka's `ConnectorUtils.groupPartitions` makes them).

pub const TASK_ASSIGNED_PARTITIONS: &str = "task.assigned.partitions";
pub const TASK_ASSIGNED_GROUPS: &str = "task.assigned.groups";
pub const TASK_INDEX: &str = "task.index";

/// Partition `i` of `partitions` goes to task `i % tasks`, with at most `max_tasks` tasks; each
/// task's list is encoded as Java's `TopicPartition.toString()` joined by commas.
pub fn source_task_partitions(partitions: &[(String, i32)], max_tasks: usize) -> Vec<String> {
    let tasks = max_tasks.min(partitions.len());
    let mut assigned = vec![Vec::new(); tasks];
    for (i, (topic, partition)) in partitions.iter().enumerate() {
        assigned[i % tasks].push(format!("{topic}-{partition}"));
    }
    assigned.into_iter().map(|list| list.join(",")).collect()
}

/// Reads `task.assigned.partitions`: each entry splits at its last `-`.
pub fn parse_partitions(value: &str) -> Result<Vec<(String, i32)>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|entry| {
            let (topic, partition) = entry
                .rsplit_once('-')
                .ok_or_else(|| format!("Invalid topic partition {entry}"))?;
            let partition = partition
                .parse()
                .map_err(|_| format!("Invalid partition in {entry}"))?;
            Ok((topic.to_owned(), partition))
        })
        .collect()
}

/// Groups split into `min(max_tasks, groups)` contiguous chunks; the first `len % n` chunks get
/// one more.
pub fn checkpoint_task_groups(groups: &[String], max_tasks: usize) -> Vec<String> {
    let tasks = max_tasks.min(groups.len());
    if tasks == 0 {
        return Vec::new();
    }
    let (per, extra) = (groups.len() / tasks, groups.len() % tasks);
    let mut start = 0;
    (0..tasks)
        .map(|t| {
            let len = per + usize::from(t < extra);
            let chunk = groups[start..start + len].join(",");
            start += len;
            chunk
        })
        .collect()
}

/// One task config per assignment: the connector's props with the assignment under `key`
/// and the task's index, as Java's connectors give their tasks.
pub fn task_configs(
    props: &ferry_api::ConfigMap,
    key: &str,
    assignments: Vec<String>,
) -> Vec<ferry_api::ConfigMap> {
    assignments
        .into_iter()
        .enumerate()
        .map(|(i, assigned)| {
            let mut config = props.clone();
            config.insert(key.to_owned(), assigned);
            config.insert(TASK_INDEX.to_owned(), i.to_string());
            config
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(t: &str, p: i32) -> (String, i32) {
        (t.to_owned(), p)
    }

    #[test]
    fn source_partitions_go_round_robin_and_read_back() {
        let partitions = [
            tp("t0", 0),
            tp("t0", 1),
            tp("t0", 2),
            tp("my-topic", 0),
            tp("t1", 1),
        ];
        let tasks = source_task_partitions(&partitions, 2);
        assert_eq!(tasks, ["t0-0,t0-2,t1-1", "t0-1,my-topic-0"]);
        assert_eq!(
            parse_partitions(&tasks[1]).unwrap(),
            [tp("t0", 1), tp("my-topic", 0)]
        );
        assert_eq!(
            source_task_partitions(&partitions[..1], 4),
            ["t0-0"],
            "no more tasks than partitions"
        );
        assert!(source_task_partitions(&[], 4).is_empty());
        assert!(parse_partitions("nodash").is_err());
    }

    #[test]
    fn groups_go_in_contiguous_chunks() {
        let groups: Vec<String> = (0..7).map(|i| format!("g{i}")).collect();
        assert_eq!(
            checkpoint_task_groups(&groups, 3),
            ["g0,g1,g2", "g3,g4", "g5,g6"]
        );
        assert_eq!(checkpoint_task_groups(&groups[..2], 5), ["g0", "g1"]);
        assert!(checkpoint_task_groups(&[], 2).is_empty());
    }
}
