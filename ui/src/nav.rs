//! Navigation: [`Route`], the one value that says which view is shown and which item a link asked
//! it to open, and [`Nav`], the handle the pages share to read and change it.
//!
//! The app has no router: a desktop window has no address bar to deep-link from, so a link sets
//! the route and the frame in `app.rs` mounts the page the route names. The page takes its target
//! out of the route when it mounts (see the `take_*` methods), so coming back to the page later
//! through the sidebar starts from its list rather than from the old item.

use elnor_types::{LineageRequest, LineageWindow};
use leptos::prelude::*;

/// The views of the sidebar, without the item a link may ask them to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Home,
    Sessions,
    Contexts,
    Review,
    Knowledge,
    Heads,
    Timeline,
    Search,
    Library,
    Topics,
    Inspector,
    Health,
    Reconstruct,
    Settings,
    /// A node of the lineage DAG: a drill-down target reached from a brief line or an entry,
    /// not listed in the sidebar.
    Lineage,
}

/// A turn a link names: our turn id (as a search hit names it), and its row in the session's
/// transcript view when the link knows it (a search hit does; a Library reference does not). The
/// row lets the viewer read just the chunk that holds it; the id checks the row is still that
/// turn, since the transcript may have grown or been read again since the link was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnLink {
    pub turn_id: String,
    pub position: Option<u64>,
}

/// Which view is shown, with the item a link asked it to open (`None` when the view was reached
/// through the sidebar, or once the page has taken its target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Home,
    /// The Sessions page, with the session whose transcript to open and the turn to scroll to
    /// and select in it, or the window of turns a brief line came from, to show marked.
    Sessions {
        session: Option<String>,
        turn: Option<TurnLink>,
        lineage: Option<Box<LineageWindow>>,
    },
    /// The Work contexts page, with the work context to open.
    Contexts {
        work_context: Option<String>,
    },
    /// The Review page, with the proposal to open, decided or not.
    Review {
        proposal: Option<i64>,
    },
    /// The Knowledge page, with the durable node to open, retired or not.
    Knowledge {
        node: Option<String>,
    },
    /// The Heads page: the global head and the thread heads, as agents are given them.
    Heads,
    /// The Timeline, with the observation to show in its detail pane.
    Timeline {
        observation: Option<i64>,
    },
    /// The Search page, with the query to run as it opens (the search box's "See all results").
    Search {
        query: Option<String>,
    },
    /// The Library, with the document (its absolute path) to open.
    Library {
        document: Option<String>,
    },
    /// The Topics page, with the Topic to open.
    Topics {
        topic: Option<String>,
    },
    /// The Inspector, with the brief assembly to open.
    Inspector {
        assembly: Option<i64>,
    },
    /// The Health page: whether every agent's sessions are still being captured.
    Health,
    /// The Reconstruct page: capture replayed over the recorded history, compared, applied.
    Reconstruct,
    Settings,
    /// The Lineage page, with the node to show: named by its id, or by anything that sits in it
    /// (a brief line, an entry, a summary, a turn), which the page's read resolves.
    Lineage {
        source: Option<LineageRequest>,
    },
}

impl Route {
    /// The route the sidebar's button for `page` opens: the page with nothing selected.
    pub fn of(page: Page) -> Route {
        match page {
            Page::Home => Route::Home,
            Page::Sessions => Route::Sessions {
                session: None,
                turn: None,
                lineage: None,
            },
            Page::Contexts => Route::Contexts { work_context: None },
            Page::Review => Route::Review { proposal: None },
            Page::Knowledge => Route::Knowledge { node: None },
            Page::Heads => Route::Heads,
            Page::Timeline => Route::Timeline { observation: None },
            Page::Search => Route::Search { query: None },
            Page::Library => Route::Library { document: None },
            Page::Topics => Route::Topics { topic: None },
            Page::Inspector => Route::Inspector { assembly: None },
            Page::Health => Route::Health,
            Page::Reconstruct => Route::Reconstruct,
            Page::Settings => Route::Settings,
            Page::Lineage => Route::Lineage { source: None },
        }
    }

    /// The view this route shows.
    pub fn page(&self) -> Page {
        match self {
            Route::Home => Page::Home,
            Route::Sessions { .. } => Page::Sessions,
            Route::Contexts { .. } => Page::Contexts,
            Route::Review { .. } => Page::Review,
            Route::Knowledge { .. } => Page::Knowledge,
            Route::Heads => Page::Heads,
            Route::Timeline { .. } => Page::Timeline,
            Route::Search { .. } => Page::Search,
            Route::Library { .. } => Page::Library,
            Route::Topics { .. } => Page::Topics,
            Route::Inspector { .. } => Page::Inspector,
            Route::Health => Page::Health,
            Route::Reconstruct => Page::Reconstruct,
            Route::Settings => Page::Settings,
            Route::Lineage { .. } => Page::Lineage,
        }
    }
}

/// The navigation state provided by the app frame. It is `Copy`, so event handlers (which run
/// outside any reactive owner) can keep it.
#[derive(Debug, Clone, Copy)]
pub struct Nav {
    /// The current route. Every `set` mounts the named page afresh, even the page already shown,
    /// as a click on the sidebar always has; the pages take their targets without notifying.
    route: RwSignal<Route>,
    /// Notified when the Timeline, already shown, is given a new observation in place (see
    /// [`Nav::open_observation`]).
    retarget: Trigger,
}

impl Nav {
    /// A fresh navigation state, at Home, provided to every page below the caller.
    pub fn provide() -> Nav {
        let nav = Nav {
            route: RwSignal::new(Route::Home),
            retarget: Trigger::new(),
        };
        provide_context(nav);
        nav
    }

    /// The page shown now; tracked, so a view that reads it follows every navigation.
    pub fn page(self) -> Page {
        self.route.with(Route::page)
    }

    /// The page shown now, without tracking: for event handlers.
    pub fn page_untracked(self) -> Page {
        self.route.with_untracked(Route::page)
    }

    /// Goes to `route`, mounting its page again.
    pub fn go(self, route: Route) {
        self.route.set(route);
    }

    /// Shows a session's transcript on the Sessions page.
    pub fn open_session(self, session_id: String) {
        self.go(Route::Sessions {
            session: Some(session_id),
            turn: None,
            lineage: None,
        });
    }

    /// Shows a session's transcript on the Sessions page, scrolled to one turn and with that turn
    /// selected; `position` is the turn's row when the link knows it.
    pub fn open_turn(self, session_id: String, turn_id: String, position: Option<u64>) {
        self.go(Route::Sessions {
            session: Some(session_id),
            turn: Some(TurnLink { turn_id, position }),
            lineage: None,
        });
    }

    /// Shows the session a brief line (or an entry) came from on the Sessions page, scrolled to
    /// the window of turns behind it, with those turns marked and a header saying what they are.
    pub fn open_lineage(self, window: LineageWindow) {
        self.go(Route::Sessions {
            session: Some(window.session_id.clone()),
            turn: None,
            lineage: Some(Box::new(window)),
        });
    }

    /// Shows the node of the lineage DAG that `source` sits in on the Lineage page: a brief line's
    /// or an entry's capture summary, or a node named by its id.
    pub fn open_lineage_of(self, source: LineageRequest) {
        self.go(Route::Lineage {
            source: Some(source),
        });
    }

    /// Shows one node of the lineage DAG, by its id, on the Lineage page.
    pub fn open_lineage_node(self, node_id: String) {
        self.open_lineage_of(LineageRequest::Node { node_id });
    }

    /// Runs `query` on the Search page.
    pub fn open_search(self, query: String) {
        self.go(Route::Search { query: Some(query) });
    }

    /// Shows one Library document (by its absolute path), rendered, with who refers to it.
    pub fn open_document(self, path: String) {
        self.go(Route::Library {
            document: Some(path),
        });
    }

    /// Shows one Topic's lens on the Topics page.
    pub fn open_topic(self, topic_id: String) {
        self.go(Route::Topics {
            topic: Some(topic_id),
        });
    }

    /// Shows one brief assembly in the Inspector.
    pub fn open_assembly(self, assembly_id: i64) {
        self.go(Route::Inspector {
            assembly: Some(assembly_id),
        });
    }

    /// Shows one durable node on the Knowledge page, retired or not.
    pub fn open_node(self, node_id: String) {
        self.go(Route::Knowledge {
            node: Some(node_id),
        });
    }

    /// Shows one proposal, with its evidence and decision, on the Review page.
    pub fn open_proposal(self, proposal_id: i64) {
        self.go(Route::Review {
            proposal: Some(proposal_id),
        });
    }

    /// Shows one work context, its rules and its log, on the Work contexts page.
    pub fn open_work_context(self, work_context_id: String) {
        self.go(Route::Contexts {
            work_context: Some(work_context_id),
        });
    }

    /// Shows one observation (a file change or a push) in the Timeline's detail pane. The push
    /// dialog links here from over any page, the Timeline included; an open Timeline takes the
    /// target as it stands rather than being mounted again, which would dispose its state while
    /// its rows still answer the change. So the route changes without notifying, and the
    /// Timeline hears of it through `retarget`.
    pub fn open_observation(self, observation_id: i64) {
        let target = Route::Timeline {
            observation: Some(observation_id),
        };
        if self.route.with_untracked(Route::page) == Page::Timeline {
            self.route.update_untracked(|r| *r = target);
            self.retarget.notify();
        } else {
            self.go(target);
        }
    }

    /// Takes the target out of the route, if `take` finds one, without notifying: the page that
    /// takes it is the one being mounted.
    fn take<T>(self, take: impl FnOnce(&mut Route) -> Option<T>) -> Option<T> {
        let mut taken = None;
        self.route.update_untracked(|r| taken = take(r));
        taken
    }

    /// The session a link asked the Sessions page to open.
    pub fn take_session(self) -> Option<String> {
        self.take(|r| match r {
            Route::Sessions { session, .. } => session.take(),
            _ => None,
        })
    }

    /// The turn a link asked the Sessions page to show in the session it opens.
    pub fn take_turn(self) -> Option<TurnLink> {
        self.take(|r| match r {
            Route::Sessions { turn, .. } => turn.take(),
            _ => None,
        })
    }

    /// The window of turns a link asked the Sessions page to mark in the session it opens.
    pub fn take_lineage(self) -> Option<LineageWindow> {
        self.take(|r| match r {
            Route::Sessions { lineage, .. } => lineage.take().map(|w| *w),
            _ => None,
        })
    }

    /// The node (or what sits in it) a link asked the Lineage page to show.
    pub fn take_lineage_node(self) -> Option<LineageRequest> {
        self.take(|r| match r {
            Route::Lineage { source } => source.take(),
            _ => None,
        })
    }

    /// The query a link asked the Search page to run.
    pub fn take_query(self) -> Option<String> {
        self.take(|r| match r {
            Route::Search { query } => query.take(),
            _ => None,
        })
    }

    /// The work context a link asked the Work contexts page to open.
    pub fn take_work_context(self) -> Option<String> {
        self.take(|r| match r {
            Route::Contexts { work_context } => work_context.take(),
            _ => None,
        })
    }

    /// The proposal a link asked the Review page to open.
    pub fn take_proposal(self) -> Option<i64> {
        self.take(|r| match r {
            Route::Review { proposal } => proposal.take(),
            _ => None,
        })
    }

    /// The node a link asked the Knowledge page to open.
    pub fn take_node(self) -> Option<String> {
        self.take(|r| match r {
            Route::Knowledge { node } => node.take(),
            _ => None,
        })
    }

    /// The observation a link asked the Timeline to show. Tracks `retarget`, so an effect that
    /// calls it runs again when the shown Timeline is given a new observation.
    pub fn take_observation(self) -> Option<i64> {
        self.retarget.track();
        self.take(|r| match r {
            Route::Timeline { observation } => observation.take(),
            _ => None,
        })
    }

    /// The document a link asked the Library to open.
    pub fn take_document(self) -> Option<String> {
        self.take(|r| match r {
            Route::Library { document } => document.take(),
            _ => None,
        })
    }

    /// The Topic a link asked the Topics page to open.
    pub fn take_topic(self) -> Option<String> {
        self.take(|r| match r {
            Route::Topics { topic } => topic.take(),
            _ => None,
        })
    }

    /// The assembly a link asked the Inspector to open.
    pub fn take_assembly(self) -> Option<i64> {
        self.take(|r| match r {
            Route::Inspector { assembly } => assembly.take(),
            _ => None,
        })
    }
}

/// The navigation state provided by the app frame.
pub fn use_nav() -> Nav {
    expect_context::<Nav>()
}
