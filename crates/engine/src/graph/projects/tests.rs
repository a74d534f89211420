//! Working directories to projects, as a table: what each directory means.

use expect_test::expect;

use super::*;

fn check(cases: &[&str], home: Option<&str>, expect: expect_test::Expect) {
    let mut out = String::new();
    for cwd in cases {
        match of_cwd(cwd, home) {
            Some(p) => out.push_str(&format!(
                "{cwd:?} → {} ({}) key {}\n",
                p.root, p.name, p.key
            )),
            None => out.push_str(&format!("{cwd:?} → not a project\n")),
        }
    }
    expect.assert_eq(&out);
}

#[test]
fn directories_from_other_machines_are_their_own_projects() {
    check(
        &[
            "/Users/pretor/Documents/PAI - TPOS",
            "/Users/pretor/Documents/PAI - TPOS/",
            "/mnt/d/ai/MoonMind",
            "c:\\Users\\shahh\\OneDrive\\Desktop\\agentic-neurodata-conversion-2",
            "C:/Users/shahh/OneDrive/Desktop/agentic-neurodata-conversion-2\\",
            "/home/ubuntu/.openclaw/workspace-scholar",
        ],
        Some("/home/nobody-here"),
        expect![[r#"
            "/Users/pretor/Documents/PAI - TPOS" → /Users/pretor/Documents/PAI - TPOS (PAI - TPOS) key /Users/pretor/Documents/PAI - TPOS
            "/Users/pretor/Documents/PAI - TPOS/" → /Users/pretor/Documents/PAI - TPOS (PAI - TPOS) key /Users/pretor/Documents/PAI - TPOS
            "/mnt/d/ai/MoonMind" → /mnt/d/ai/MoonMind (MoonMind) key /mnt/d/ai/MoonMind
            "c:\\Users\\shahh\\OneDrive\\Desktop\\agentic-neurodata-conversion-2" → C:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2 (agentic-neurodata-conversion-2) key c:\users\shahh\onedrive\desktop\agentic-neurodata-conversion-2
            "C:/Users/shahh/OneDrive/Desktop/agentic-neurodata-conversion-2\\" → C:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2 (agentic-neurodata-conversion-2) key c:\users\shahh\onedrive\desktop\agentic-neurodata-conversion-2
            "/home/ubuntu/.openclaw/workspace-scholar" → /home/ubuntu/.openclaw/workspace-scholar (workspace-scholar) key /home/ubuntu/.openclaw/workspace-scholar
        "#]],
    );
}

#[test]
fn homes_roots_and_temp_folders_are_not_projects() {
    check(
        &[
            "/",
            "C:\\",
            "~",
            "/home/alice",
            "/Users/bob/",
            "C:\\Users\\carol",
            "/root",
            "/tmp/pytest-of-runner/pytest-3/test_x0",
            "/private/var/folders/xy/T/abc",
            "C:\\Users\\dave\\AppData\\Local\\Temp\\proj",
            "/opt/hostedtoolcache/Python/3.11",
            "/mnt/d",
            "/Volumes/Data/",
            "",
        ],
        Some("/home/me"),
        expect![[r#"
            "/" → not a project
            "C:\\" → not a project
            "~" → not a project
            "/home/alice" → not a project
            "/Users/bob/" → not a project
            "C:\\Users\\carol" → not a project
            "/root" → not a project
            "/tmp/pytest-of-runner/pytest-3/test_x0" → not a project
            "/private/var/folders/xy/T/abc" → not a project
            "C:\\Users\\dave\\AppData\\Local\\Temp\\proj" → not a project
            "/opt/hostedtoolcache/Python/3.11" → not a project
            "/mnt/d" → not a project
            "/Volumes/Data/" → not a project
            "" → not a project
        "#]],
    );
}

#[test]
fn a_folder_on_this_machine_lifts_to_its_git_root_and_worktrees_join_it() {
    let dir = tempfile::tempdir().unwrap();
    // Temp folders are refused as projects, so the repository lives under a folder whose path
    // the test passes as "home" only for `~`; the check runs on the real filesystem.
    let base = dir.path().join("work");
    let repo = base.join("app");
    std::fs::create_dir_all(repo.join(".git/worktrees/feature")).unwrap();
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let wt = base.join("app-feature");
    std::fs::create_dir_all(wt.join("lib")).unwrap();
    std::fs::write(
        wt.join(".git"),
        format!(
            "gitdir: {}\n",
            repo.join(".git/worktrees/feature").display()
        ),
    )
    .unwrap();
    let plain = base.join("notes/sub");
    std::fs::create_dir_all(&plain).unwrap();

    let root = git_root(&repo.join("src/deep")).unwrap();
    assert_eq!(root, repo);
    assert_eq!(git_root(&wt.join("lib")).unwrap(), repo);
    assert_eq!(git_root(&plain), None);
}

#[test]
fn within_compares_normalised_keys() {
    assert!(within("c:\\work\\app\\src", "C:/Work/App"));
    assert!(within("/a/b", "/a/b/"));
    assert!(within("/a/b/c", "/a/b"));
    assert!(!within("/a/bc", "/a/b"));
    assert!(!within("/A/b", "/a/b"));
}
