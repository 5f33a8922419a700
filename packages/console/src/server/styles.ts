/** The console's stylesheet (served as /ui/app.css). Series colours .s0-.s7 are shared by chart lines and legends. */
export const CONSOLE_CSS = `
:root {
  --ink: #1d2733; --muted: #5d6b7a; --line: #d9dee4; --bg: #f5f7f9; --card: #fff;
  --brand: #1f3a56; --accent: #2d6cdf; --ok: #1e7d4f; --warn: #a86400; --bad: #b3261e;
  --warn-bg: #fff4df; --bad-bg: #fde8e6; --ok-bg: #e4f5ec;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  color: var(--ink); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
header.top { display: flex; align-items: center; gap: 20px; padding: 0 16px; height: 46px; background: var(--brand); color: #fff; }
header.top .brand { font-weight: 700; letter-spacing: .3px; }
header.top .brand small { font-weight: 400; opacity: .75; margin-left: 6px; }
header.top nav { display: flex; gap: 2px; flex: 1; }
header.top nav a { color: #dbe6f2; padding: 13px 10px; }
header.top nav a.active { color: #fff; box-shadow: inset 0 -3px 0 #8fb8ff; }
header.top nav a:hover { text-decoration: none; color: #fff; }
header.top .auth { font-size: 12.5px; display: flex; gap: 8px; align-items: center; }
header.top .auth button { background: transparent; color: #fff; border: 1px solid #7d97b3; border-radius: 4px; padding: 3px 8px; cursor: pointer; }
main { padding: 16px 20px 40px; }
h1 { font-size: 20px; margin: 4px 0 14px; }
h2 { font-size: 16px; margin: 22px 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.sub { color: var(--muted); font-weight: 400; font-size: 13px; margin-left: 8px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 12px; margin-bottom: 8px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .4px; }
.card .value { font-size: 24px; font-weight: 600; }
.card.bad .value { color: var(--bad); }
.card.warn .value { color: var(--warn); }
.card.ok .value { color: var(--ok); }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; margin: 10px 0; }
table.data { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); }
table.data th, table.data td { text-align: left; padding: 5px 9px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.data th { background: #eef1f4; font-weight: 600; font-size: 12.5px; color: #3a4756; white-space: nowrap; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data tr.urp td { background: var(--warn-bg); }
table.data tr.offline td { background: var(--bad-bg); }
table.data tr.selected td { background: #e7f0ff; }
table.data tbody tr:not(.urp):not(.offline):hover td { background-color: #f0f4fa; }
table.data td.empty { color: var(--muted); text-align: center; padding: 14px; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; line-height: 19px; background: #e7ebef; color: #3a4756; white-space: nowrap; }
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.info { background: #e3ecfd; color: #1d4fb0; }
.muted { color: var(--muted); }
.row { display: flex; gap: 10px; align-items: flex-end; flex-wrap: wrap; margin: 8px 0; }
.row label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
.row label.inline { flex-direction: row; align-items: center; gap: 5px; color: var(--ink); font-size: 13px; }
input, select, textarea { font: inherit; padding: 4px 7px; border: 1px solid #b9c2cc; border-radius: 4px; background: #fff; color: var(--ink); }
input[type=number] { width: 110px; }
textarea { width: 100%; min-height: 60px; }
button, .btn { font: inherit; padding: 4px 12px; border-radius: 4px; border: 1px solid #9fb0c2; background: #fff; color: var(--ink); cursor: pointer; }
button:hover { background: #eef3f8; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.primary:hover { background: #255bc0; }
button.danger { border-color: var(--bad); color: var(--bad); }
button.danger:hover { background: var(--bad-bg); }
button:disabled { opacity: .55; cursor: default; }
.alert { padding: 8px 12px; border-radius: 5px; margin: 8px 0; border: 1px solid; }
.alert.error { background: var(--bad-bg); border-color: #f0b8b2; color: #7f1d17; }
.alert.ok { background: var(--ok-bg); border-color: #a8dcc0; color: #14573a; }
.alert.info { background: #eaf1fd; border-color: #bcd0f5; color: #1d3f80; }
.alert code { background: rgba(0,0,0,.06); padding: 0 4px; border-radius: 3px; }
.seg { display: inline-flex; border: 1px solid #9fb0c2; border-radius: 4px; overflow: hidden; }
.seg button { border: 0; border-radius: 0; border-right: 1px solid #9fb0c2; }
.seg button:last-child { border-right: 0; }
.seg button.on { background: var(--brand); color: #fff; }
pre.value { margin: 0; white-space: pre-wrap; word-break: break-all; max-height: 260px; overflow: auto; }
.headers { margin: 0; padding: 0; list-style: none; }
.headers li { font-size: 12.5px; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 14px; }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px 4px; }
.chart .title { font-weight: 600; font-size: 13px; }
.chart svg { display: block; width: 100%; height: auto; }
.chart .grid line { stroke: #e6eaee; }
.chart .axis text { fill: #6b7886; font-size: 10.5px; }
.chart path.line { fill: none; stroke-width: 1.8; }
.chart circle.dot { fill: currentColor; stroke: none; }
.chart .legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 12px; padding: 2px 0 4px; }
.chart .legend span::before { content: ""; display: inline-block; width: 10px; height: 3px; margin-right: 5px; vertical-align: middle; background: currentColor; }
.chart .empty { fill: #8a96a3; font-size: 12px; }
.s0 { stroke: #2d6cdf; color: #2d6cdf; } .s1 { stroke: #d9480f; color: #d9480f; } .s2 { stroke: #2b8a3e; color: #2b8a3e; }
.s3 { stroke: #862e9c; color: #862e9c; } .s4 { stroke: #c2255c; color: #c2255c; } .s5 { stroke: #0b7285; color: #0b7285; }
.s6 { stroke: #5c940d; color: #5c940d; } .s7 { stroke: #e67700; color: #e67700; }
.progress { height: 8px; background: #e7ebef; border-radius: 4px; overflow: hidden; min-width: 120px; }
.progress > div { height: 100%; background: var(--ok); }
dialog { border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px; min-width: 360px; }
dialog::backdrop { background: rgba(20, 30, 45, .35); }
.toolbar { display: flex; gap: 8px; align-items: center; margin: 6px 0 10px; flex-wrap: wrap; }
.spacer { flex: 1; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; }
.small { font-size: 12px; }
.row label.grow { flex: 1; }
details.panel > summary { cursor: pointer; font-weight: 600; }
.replicas { margin: 0; padding: 0; list-style: none; font-size: 12.5px; }
.replicas li { white-space: nowrap; }
`;
