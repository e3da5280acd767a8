"""Drives Ferry with a third-party Connect client (kafka-connect-py from PyPI): create, status,
pause, resume, restart, topics, delete. Exits non-zero on the first difference from what a Java
Connect worker would answer.

Usage: kafka_connect_py_flow.py <base url> <input file> <topic> <connector name>
"""
import sys
import time

from kafka_connect import KafkaConnect


def wait(what, condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            sys.exit(f"timed out waiting for {what}")
        time.sleep(0.2)


def main():
    url, input_file, topic, name = sys.argv[1:5]
    client = KafkaConnect(url=url)
    info = client.get_cluster_info()
    assert set(info) == {"version", "commit", "kafka_cluster_id"}, info

    created = client.create_connector(
        {"name": name, "config": {"connector.class": "FileStreamSource", "file": input_file, "topic": topic}}
    )
    assert created["name"] == name and created["type"] == "source", created
    assert name in client.list_connectors()

    def state(expected):
        status = client.get_connector_status(name)
        tasks = status["tasks"]
        return status["connector"]["state"] == expected and tasks and all(t["state"] == expected for t in tasks)

    wait("RUNNING", lambda: state("RUNNING"))
    client.pause_connector(name)
    wait("PAUSED", lambda: state("PAUSED"))
    client.resume_connector(name)
    wait("RUNNING after resume", lambda: state("RUNNING"))

    plan = client.restart_connector(name, include_tasks=True, only_failed=False)
    assert plan["connector"]["state"] == "RESTARTING", plan
    assert all(t["state"] == "RESTARTING" for t in plan["tasks"]), plan
    wait("RUNNING after restart", lambda: state("RUNNING"))

    topics = wait("the active topic", lambda: client.list_connector_topics(name)[name]["topics"])
    assert topics == [topic], topics
    tasks = client.list_connector_tasks(name)
    assert tasks[0]["id"] == {"connector": name, "task": 0}, tasks

    client.delete_connector(name)
    assert name not in client.list_connectors()
    print("kafka-connect-py flow passed")


if __name__ == "__main__":
    main()
