/**
 * `GET /v1/chats` as a tree (docs/api.md#chat-info-and-the-chat-list): each top-level chat of the page with
 * its descendants nested under it, read level by level from the index's
 * parent links. Depth is bounded by `max_depth` (≤ 5), but a tree keeps its
 * finished children until retention, so a page is bounded here: a chat lists
 * its newest `MAX_LISTED_CHILDREN` children and a top-level chat at most
 * `MAX_LISTED_DESCENDANTS` descendants in all (nearest levels first);
 * `more_children` says how many of a chat's children were left out.
 */

export const MAX_LISTED_CHILDREN = 20;
export const MAX_LISTED_DESCENDANTS = 50;
/** Levels below a top-level chat: `limits.max_depth` is at most 5. */
export const MAX_LISTED_DEPTH = 5;

export type IndexRow = {
  chat_id: string;
  parent_chat_id: string | null;
  level: number;
  name: string;
  created_at: number;
  last_activity: number;
};

export interface ListedChat {
  chat_id: string;
  parent_chat_id: string | null;
  level: number;
  name: string;
  created_at: string;
  last_activity: string;
  children: ListedChat[];
  more_children?: number;
}

/** The children of some chats: per parent its newest `MAX_LISTED_CHILDREN` at most, and how many it has. */
export type ChildrenOf = (parentIds: string[]) => { rows: IndexRow[]; counts: Map<string, number> };

const listed = (row: IndexRow): ListedChat => ({
  chat_id: row.chat_id,
  parent_chat_id: row.parent_chat_id,
  level: row.level,
  name: row.name,
  created_at: new Date(row.created_at).toISOString(),
  last_activity: new Date(row.last_activity).toISOString(),
  children: [],
});

/** Nests the descendants of `roots`, one `childrenOf` call per level; children come oldest first. */
export function chatTree(roots: IndexRow[], childrenOf: ChildrenOf): ListedChat[] {
  const tree = roots.map(listed);
  const nodes = new Map(tree.map((n) => [n.chat_id, n]));
  const rootOf = new Map(tree.map((n) => [n.chat_id, n.chat_id]));
  const budget = new Map(tree.map((n) => [n.chat_id, MAX_LISTED_DESCENDANTS]));
  let frontier = tree.map((n) => n.chat_id);
  for (let depth = 1; depth <= MAX_LISTED_DEPTH && frontier.length; depth++) {
    const { rows, counts } = childrenOf(frontier);
    const byParent = new Map<string, IndexRow[]>();
    for (const row of rows) {
      // A link back into the page (a cycle the index should never hold) would list a chat twice.
      if (nodes.has(row.chat_id) || !row.parent_chat_id || !nodes.has(row.parent_chat_id)) continue;
      byParent.set(row.parent_chat_id, [...(byParent.get(row.parent_chat_id) ?? []), row]);
    }
    const next: string[] = [];
    for (const parentId of frontier) {
      const parent = nodes.get(parentId)!;
      const root = rootOf.get(parentId)!;
      const newestFirst = [...(byParent.get(parentId) ?? [])].sort(
        (a, b) => b.created_at - a.created_at || (a.chat_id < b.chat_id ? 1 : -1),
      );
      const kept = newestFirst.slice(0, Math.min(MAX_LISTED_CHILDREN, budget.get(root)!));
      budget.set(root, budget.get(root)! - kept.length);
      for (const row of kept.reverse()) {
        const node = listed(row);
        parent.children.push(node);
        nodes.set(node.chat_id, node);
        rootOf.set(node.chat_id, root);
        next.push(node.chat_id);
      }
      const more = (counts.get(parentId) ?? 0) - kept.length;
      if (more > 0) parent.more_children = more;
    }
    frontier = next;
  }
  return tree;
}
