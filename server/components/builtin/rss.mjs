// Built-in registry component: polls an RSS (0.9x, 1.0, 2.0) or Atom feed and emits each new
// item once (dedupe "unique" on the item's guid, else its link). Events carry permalink, guid,
// title and link, plus the dates and text the feed gives.
const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

function decodeEntities(text) {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec) => String.fromCodePoint(Number(dec)))
    .replace(/&([a-z]+);/gi, (m, name) => ENTITIES[name.toLowerCase()] ?? m);
}

/** Entities decoded outside CDATA sections; CDATA kept verbatim. */
function decode(text) {
  return text
    .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
    .map((part) => (part.startsWith("<![CDATA[") ? part.slice(9, -3) : decodeEntities(part)))
    .join("")
    .trim();
}

/** The text of the first <tag> (namespaced names allowed), or undefined. */
function tagText(xml, tag) {
  const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "i").exec(xml);
  return m ? decode(m[1]) : undefined;
}

function attr(tagSource, name) {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, "i").exec(tagSource);
  return m ? decode(m[2] ?? m[3] ?? "") : undefined;
}

/** Atom links: rel="alternate" (or no rel) is the item's link. */
function atomLink(entry) {
  const links = entry.match(/<link\b[^>]*\/?>/gi) ?? [];
  const alternate = links.find((l) => !attr(l, "rel") || attr(l, "rel") === "alternate") ?? links[0];
  return alternate ? attr(alternate, "href") : undefined;
}

function parseFeed(xml) {
  const isAtom = /<feed[\s>]/i.test(xml) && !/<rss[\s>]/i.test(xml);
  const blocks = xml.match(isAtom ? /<entry[\s>][\s\S]*?<\/entry>/gi : /<item[\s>][\s\S]*?<\/item>/gi) ?? [];
  const channel = isAtom ? xml.replace(/<entry[\s>][\s\S]*/i, "") : xml.replace(/<item[\s>][\s\S]*/i, "");
  const feed = { title: tagText(channel, "title"), link: isAtom ? atomLink(channel) : tagText(channel, "link") };
  const items = blocks.map((block) => {
    const link = isAtom ? atomLink(block) : tagText(block, "link") ?? attr(/<item\b[^>]*>/i.exec(block)?.[0] ?? "", "rdf:about");
    const guid = isAtom ? tagText(block, "id") : tagText(block, "guid");
    const guidTag = /<guid\b[^>]*>/i.exec(block)?.[0];
    const guidIsPermalink = !isAtom && guid && (!guidTag || attr(guidTag, "isPermaLink") !== "false") && /^https?:/i.test(guid);
    const date = isAtom ? tagText(block, "updated") ?? tagText(block, "published") : tagText(block, "pubDate") ?? tagText(block, "dc:date");
    return {
      title: tagText(block, "title") ?? null,
      link: link ?? null,
      guid: guid ?? link ?? null,
      permalink: guidIsPermalink ? guid : link ?? null,
      pubdate: date ?? null,
      description: (isAtom ? tagText(block, "summary") ?? tagText(block, "content") : tagText(block, "description")) ?? null,
      author: (isAtom ? tagText(block, "name") : tagText(block, "author") ?? tagText(block, "dc:creator")) ?? null,
      categories: (block.match(/<category\b[^>]*>([\s\S]*?)<\/category>|<category\b[^>]*term="([^"]*)"[^>]*\/>/gi) ?? []).map((c) =>
        decode(c.replace(/^<category\b[^>]*?(?:term="([^"]*)")?[^>]*>/i, (_m, term) => term ?? "").replace(/<\/category>$/i, "")),
      ),
      feed,
    };
  });
  return { isAtom, feed, items };
}

export default {
  key: "rss-new-item-in-feed",
  name: "New Item in Feed",
  version: "0.1.1",
  description: "Emit new items from an RSS or Atom feed, each once.",
  dedupe: "unique",
  props: {
    url: { type: "string", label: "Feed URL", description: "The URL of an RSS or Atom feed" },
    timer: { type: "$.interface.timer", label: "Polling schedule", default: { intervalSeconds: 900 } },
  },
  methods: {
    async fetchFeed() {
      const res = await fetch(this.url, {
        headers: { accept: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.5" },
        signal: AbortSignal.timeout(30_000),
      });
      if (!res.ok) throw new Error(`the feed at ${this.url} answered ${res.status} ${res.statusText}`);
      const xml = await res.text();
      if (!/<(rss|feed|rdf:RDF)[\s>]/i.test(xml)) throw new Error(`${this.url} is not an RSS or Atom feed`);
      return parseFeed(xml);
    },
    async poll() {
      const { items } = await this.fetchFeed();
      // Feeds list newest first. Only the newest 100 are considered: the unique dedupe remembers
      // 100 ids, so older ones would otherwise come back on every poll of a long feed.
      // Emitted oldest first, so the newest event is the latest.
      for (const item of items.slice(0, 100).reverse()) {
        const ts = item.pubdate ? Date.parse(item.pubdate) : NaN;
        this.$emit(item, {
          id: item.guid ?? item.link ?? item.title,
          summary: item.title ?? item.link ?? "New item",
          ts: Number.isFinite(ts) ? ts : Date.now(),
        });
      }
    },
  },
  hooks: {
    async deploy() {
      await this.poll();
    },
  },
  async run() {
    await this.poll();
  },
};
