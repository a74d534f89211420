//! Graph schema: the embedded migrations validate, a new database is WAL at the latest version,
//! and a database from a newer schema is refused untouched.

use super::*;

#[test]
fn embedded_migrations_are_valid() {
    // Applies every migration to an in-memory database and checks the result is consistent.
    migrations().unwrap().validate().unwrap();
    assert!(latest_schema_version() >= 1);
}

#[test]
fn open_creates_wal_database_at_latest_version_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("entity_graph.sqlite");
    let graph = Graph::open(&path).unwrap();
    assert_eq!(graph.schema_version().unwrap(), latest_schema_version());
    let mode: String = graph
        .with_conn(|c| c.pragma_query_value(None, "journal_mode", |r| r.get(0)))
        .unwrap();
    assert_eq!(mode, "wal");
    graph
        .with_conn(|c| {
            c.execute(
                "INSERT INTO entities VALUES ('e1', 'person', 'Christensen', NULL, 'now', 'now')",
                [],
            )
        })
        .unwrap();
    drop(graph);
    let again = Graph::open(&path).unwrap();
    assert_eq!(again.entity_count().unwrap(), 1);
}

#[test]
fn database_from_a_newer_schema_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("entity_graph.sqlite");
    drop(Graph::open(&path).unwrap());
    let future = latest_schema_version() + 1;
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", future).unwrap();
    drop(conn);
    let err = Graph::open(&path).unwrap_err();
    assert!(err.to_string().contains("newer version of elnor"), "{err}");
    let conn = Connection::open(&path).unwrap();
    let version: u32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, future);
}
