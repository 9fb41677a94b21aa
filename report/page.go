package report

// pageHTML is the report page. It is XHTML-compatible (every element
// closed, only XML's predefined entities) so that the output parses as XML;
// it has no script, no external resource and no URL built from the
// document.
const pageHTML = `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head>
<meta charset="utf-8"/>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"/>
<meta name="referrer" content="no-referrer"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>MCP-RES report: {{.Verdict.Status}} · {{.Name}}</title>
<style>
:root { --ink: #1c2430; --muted: #5b6675; --line: #d9dee5; --bg: #f5f7fa; --card: #fff;
  --ok: #1f7a4d; --ok-bg: #e5f4ec; --bad: #b3261e; --bad-bg: #fbe9e7; --warn: #8a5a00;
  --clean: #2f6fb3; --fault: #c07a00; --neg: #7446b8; --rec: #13808a; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); background: var(--bg); }
main { max-width: 1120px; margin: 0 auto; padding: 20px 18px 40px; overflow-wrap: break-word; word-break: normal; hyphens: manual; }
header.top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 16px; margin-bottom: 12px; }
header.top h1 { font-size: 20px; margin: 0; }
header.top .file { color: var(--muted); overflow-wrap: anywhere; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 18px; margin: 14px 0; break-inside: avoid-page; }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.verdict { border-width: 2px; }
.verdict.ok { border-color: var(--ok); background: var(--ok-bg); }
.verdict.bad { border-color: var(--bad); background: var(--bad-bg); }
.status { display: inline-block; font-weight: 700; font-size: 22px; letter-spacing: .02em; padding: 2px 12px; border-radius: 6px; color: #fff; }
.ok .status { background: var(--ok); }
.bad .status { background: var(--bad); }
.detail { margin: 10px 0 4px; font-weight: 600; }
.diag { border-left: 4px solid var(--bad); background: #fff; padding: 8px 12px; margin: 10px 0; border-radius: 4px; }
.diag code { font-weight: 700; }
.diag p { margin: 4px 0; }
.where { color: var(--muted); font-size: 13px; }
dl.kv { display: grid; grid-template-columns: minmax(110px, 38%) minmax(0, 1fr); gap: 4px 14px; margin: 0; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; }
dd.big { font-weight: 700; font-size: 17px; }
.mono, code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; margin: 4px 0; table-layout: fixed; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td .lbl { display: none; }
.note { color: var(--muted); font-size: 13px; margin: 6px 0; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; margin: 14px 0; }
.grid2 > section { margin: 0; }
.chip { display: inline-block; max-width: 100%; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.st-ok .chip { background: var(--ok-bg); color: var(--ok); }
.st-ind .chip { background: #e8f0fb; color: var(--clean); }
.st-na .chip { background: #eceff3; color: var(--muted); }
.st-bad .chip { background: var(--bad-bg); color: var(--bad); }
svg { display: block; max-width: none; }
svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; fill: var(--ink); }
svg .id { font-weight: 600; font-size: 12.5px; }
svg .sub { fill: var(--muted); font-size: 11px; }
.op rect { fill: #fff; stroke-width: 2; }
.k-clean rect { stroke: var(--clean); } .k-clean .bar { fill: var(--clean); }
.k-fault rect { stroke: var(--fault); } .k-fault .bar { fill: var(--fault); }
.k-negative rect { stroke: var(--neg); stroke-dasharray: 6 3; } .k-negative .bar { fill: var(--neg); }
.k-recovery rect { stroke: var(--rec); } .k-recovery .bar { fill: var(--rec); }
.k-other rect { stroke: var(--muted); } .k-other .bar { fill: var(--muted); }
.op.failing rect.box { fill: var(--bad-bg); stroke: var(--bad); }
.op.fired rect.box { stroke-width: 4; stroke: var(--bad); }
.elision rect { fill: #eef1f5; stroke: var(--muted); stroke-dasharray: 2 3; }
path.edge { fill: none; stroke: #8a94a3; stroke-width: 1.6; }
path.edge.retry { stroke: var(--rec); stroke-dasharray: 5 3; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12.5px; color: var(--muted); margin: 6px 0 10px; }
.legend span::before { content: ""; display: inline-block; width: 12px; height: 12px; margin-right: 5px; vertical-align: -2px; border: 2px solid; border-radius: 3px; }
.lg-clean::before { border-color: var(--clean) !important; } .lg-fault::before { border-color: var(--fault) !important; }
.lg-neg::before { border-color: var(--neg) !important; border-style: dashed !important; } .lg-rec::before { border-color: var(--rec) !important; }
.lg-fail::before { border-color: var(--bad) !important; background: var(--bad-bg); }
.lg-fired::before { border-color: var(--bad) !important; border-width: 4px !important; }
.obs.o-pass { fill: var(--ok); } .obs.o-fail { fill: var(--bad); } .obs.o-other { fill: var(--warn); }
.axis { stroke: #8a94a3; } .tick { stroke: #d9dee5; }
.b-min { fill: #7fb3e0; } .b-med { fill: var(--clean); } .b-p95 { fill: #1d4a7a; }
.limits { border-left: 4px solid var(--warn); }
.limits li { margin: 4px 0; }
ul.tree { list-style: none; margin: 0; padding-left: 16px; border-left: 1px dotted var(--line); }
ul.tree.root { padding-left: 0; border-left: 0; }
.tree .k { color: var(--neg); font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
.tree .s { color: var(--ok); overflow-wrap: anywhere; }
.tree .n { color: var(--clean); }
.tree summary { cursor: default; }
.tree .sum { color: var(--muted); font-size: 12px; }
footer { color: var(--muted); font-size: 12.5px; text-align: center; margin-top: 20px; }
@media screen and (max-width: 720px) {
  main { padding: 10px 8px 30px; }
  section { padding: 10px 10px; border-radius: 8px; }
  dl.kv { grid-template-columns: minmax(0, 1fr); gap: 0 0; }
  dl.kv dd { margin-bottom: 6px; }
  .grid2 { grid-template-columns: 1fr; }
  .status { font-size: 18px; }
  body { font-size: 14px; }
  table.data, table.data tbody, table.data tr { display: block; width: 100%; }
  table.data thead { display: none; }
  table.data tr { border-bottom: 1px solid var(--line); padding: 4px 0; }
  table.data td { display: grid; grid-template-columns: minmax(80px, 32%) minmax(0, 1fr); gap: 0 10px; width: 100%; border: 0; padding: 1px 2px; }
  table.data td .lbl { display: block; color: var(--muted); font: 12.5px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; word-break: normal; }
}
@page { margin: 12mm; }
@media print {
  body { background: #fff; font-size: 11pt; }
  main { max-width: none; padding: 0; }
  section { border: 1px solid #999; break-inside: avoid; page-break-inside: avoid; }
  .grid2 { grid-template-columns: 1fr; }
  .scroll { overflow: visible; }
  table { font-size: 8.5pt; }
  th, td { padding: 2px 3px; }
  svg { max-width: 100%; height: auto; }
  .verdict.ok, .verdict.bad { background: #fff; }
  details > summary { list-style: none; }
}
</style>
</head>
<body>
<main>
<header class="top"><h1>MCP-RES report</h1><span class="file">{{.Name}} · {{.Kind}}</span></header>

<section class="verdict {{.Verdict.Class}}" id="verdict">
<h2>Verdict</h2>
<span class="status">{{.Verdict.Status}}</span>
{{if .Verdict.Detail}}<p class="detail">{{.Verdict.Detail}}</p>{{end}}
{{range .Verdict.Diagnostics}}<div class="diag"><code>{{.Code}}</code><p>{{.Meaning}}</p><p class="where">Where the check looks: {{.Where}}</p></div>
{{end}}
{{with .Verdict.SchemaErrors}}<h3>Schema errors</h3>{{template "table" .}}{{end}}
{{with .Verdict.Gate}}<h3>Gate checks</h3><p class="note">What the release gate required of this bundle (a PASS result, a trusted signer, the subject that ships) and what it found: it passes only when every check passes.</p>{{template "table" .}}{{end}}
{{with .Verdict.Subject}}<h3>Subject checks</h3><p class="note">What the document must be about (the artifact, digest, name and version the verifier asked for), against the pinned subject every signature binds.</p>{{template "table" .}}{{end}}
{{if .Verdict.Extra}}<h3>Result members</h3><dl class="kv">{{range .Verdict.Extra}}<dt>{{.K}}</dt><dd>{{.V}}</dd>{{end}}</dl>{{end}}
{{if .Verdict.Authenticity}}<h3>Authenticity level</h3><dl class="kv">{{range .Verdict.Authenticity}}<dt>{{.K}}</dt><dd class="{{.Class}}">{{.V}}</dd>{{end}}</dl>{{end}}
{{if .Verdict.EvidenceClass}}<h3>Evidence class</h3><dl class="kv">{{range .Verdict.EvidenceClass}}<dt>{{.K}}</dt><dd class="{{.Class}}">{{.V}}</dd>{{end}}</dl>
{{with .Verdict.RestsOn}}<p class="note">The class rests on these passing, integrity-bound observations:</p>{{template "table" .}}{{end}}
{{with .Verdict.RestsOnNone}}<p class="note">{{.}}</p>{{end}}{{end}}
</section>

{{with .Auth}}<section id="authenticity">
<h2>Authenticity</h2>
<dl class="kv">{{range .Facts}}<dt>{{.K}}</dt><dd class="{{if .Mono}}mono {{end}}{{.Class}}">{{.V}}</dd>{{end}}</dl>
{{with .Envelopes}}<h3>Envelopes</h3>{{template "table" .}}{{end}}
{{with .Transparency}}<h3 id="transparency">Transparency</h3>{{template "table" .}}
<p class="note">NONE: no reference. DIGEST_ONLY: only the SHA-256 of the proof bytes was checked; no log was consulted, so the log and entry are the signer's claim. VERIFIED_OFFLINE: the entry's inclusion in the log, the log's signed checkpoint and the witness cosignatures were verified offline against a log the policy trusts. FAILED: the reference was checked and did not verify (its diagnostic says why).</p>{{end}}
{{with .Witnesses}}<h3>Witness cosignatures</h3>{{template "table" .}}{{end}}
{{if .Notes}}<h3>How the level was derived</h3><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Detail}}<details><summary>Everything the verification recorded</summary>{{template "tree" .Detail}}</details>{{end}}
</section>{{end}}

{{with .Bundle}}
<div class="grid2">
<section id="subject"><h2>Subject</h2><dl class="kv">{{range .Subject}}<dt>{{.K}}</dt><dd{{if .Mono}} class="mono"{{end}}>{{.V}}</dd>{{end}}</dl>
<h3>Run</h3><dl class="kv">{{range .Run}}<dt>{{.K}}</dt><dd{{if .Mono}} class="mono"{{end}}>{{.V}}</dd>{{end}}</dl></section>
<section id="scenario"><h2>Scenario</h2><dl class="kv">{{range .Scenario}}<dt>{{.K}}</dt><dd{{if .Mono}} class="mono"{{end}}>{{.V}}</dd>{{end}}</dl></section>
</div>

<section id="graph"><h2>Operation graph</h2>
{{with .Graph}}{{if .Collapsed}}<p class="note">{{.Total}} operations ({{.Roots}} roots): too many to draw. Summary by kind and outcome; the longest parent chain ({{.Chain}} operations) is drawn{{if .Elided}}, its middle {{.Elided}} elided{{end}}.</p>
{{with .Summary}}{{template "table" .}}{{end}}
{{else}}<p class="note">{{.Total}} operations, {{.Roots}} roots, longest parent chain {{.Chain}}. Arrows run from parent to child; hover a node for its details.</p>{{end}}
<div class="legend"><span class="lg-clean">clean control</span><span class="lg-fault">fault case</span><span class="lg-neg">negative control</span><span class="lg-rec">recovery attempt (dashed edge: retry under a recovery policy)</span><span class="lg-fail">failing outcome ✗</span><span class="lg-fired">named by the diagnostic</span></div>
{{if .Nodes}}<div class="scroll"><svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="operation graph">
{{range .Edges}}<path class="{{.Class}}" d="{{.D}}"/>
{{end}}{{range .Nodes}}<g class="{{.Class}}" transform="translate({{.X}} {{.Y}})">{{if not .Elision}}<title>{{.Tooltip}}</title>{{end}}<rect class="box" width="216" height="62" rx="7"/>{{if not .Elision}}<rect class="bar" width="6" height="62" rx="2"/>{{end}}<text class="id" x="14" y="20">{{.Label}}</text><text class="sub" x="14" y="37">{{.Kind}}</text><text class="sub" x="14" y="53">{{.Line2}}</text></g>
{{end}}</svg></div>{{end}}{{end}}
{{with .Operations}}<h3>Operations</h3>{{template "table" .}}{{end}}
{{with .Faults}}<h3>Faults</h3>{{template "table" .}}{{end}}
{{with .Policies}}<h3>Recovery policies</h3>{{template "table" .}}{{end}}
{{range .Negatives}}<h3>Negative control {{.Op}}</h3><dl class="kv">{{range .Facts}}<dt>{{.K}}</dt><dd>{{.V}}</dd>{{end}}</dl>{{end}}
</section>

<section id="timeline"><h2>Observation timeline</h2>
{{with .Timeline}}{{if .Rows}}<div class="scroll"><svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="observation timeline">
{{range .Ticks}}<line class="tick" x1="{{.X}}" y1="18" x2="{{.X}}" y2="{{$.Bundle.Timeline.AxisY}}"/><text class="sub" x="{{.X}}" y="12" text-anchor="middle">{{.Label}}</text>
{{end}}{{range .Rows}}<g><title>{{.Tooltip}}</title><text x="0" y="{{.Y}}" dy="14">{{.Label}}</text><rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="16" rx="3"/></g>
{{end}}<line class="axis" x1="{{.Scale}}" y1="{{.AxisY}}" x2="{{.AxisEnd}}" y2="{{.AxisY}}"/></svg></div>
<p class="note">Monotonic time from the start of the run ({{.Span}} ms). Green: PASS, red: FAIL, amber: INCOMPLETE or NOT_OBSERVED.</p>{{else}}<p class="note">No observations.</p>{{end}}{{if .Note}}<p class="note">{{.Note}}</p>{{end}}{{end}}
</section>

<section id="coverage"><h2>Coverage surfaces</h2>{{with .Coverage}}{{template "table" .}}{{else}}<p class="note">No coverage surfaces.</p>{{end}}</section>
<section id="trials"><h2>Trial summary</h2><dl class="kv">{{range .Trial}}<dt>{{.K}}</dt><dd>{{.V}}</dd>{{end}}</dl>
{{with .Chart}}<h3>Trial durations</h3><div class="scroll"><svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="trial durations">
{{range .Bars}}<text x="0" y="{{.Y}}" dy="17">{{.Label}}</text><rect class="{{.Class}}" x="80" y="{{.Y}}" width="{{.W}}" height="24" rx="3"/><text class="sub" x="{{.W}}" dx="88" y="{{.Y}}" dy="17">{{.Value}}</text>
{{end}}</svg></div>{{else}}<p class="note">No duration statistics recorded (trialSummary.durationMs is absent).</p>{{end}}</section>

<section id="integrity"><h2>Integrity manifest</h2><dl class="kv">{{range .Manifest}}<dt>{{.K}}</dt><dd{{if .Mono}} class="mono"{{end}}>{{.V}}</dd>{{end}}</dl>
{{with .Artifacts}}<h3>Artifacts</h3>{{template "table" .}}{{end}}</section>
{{end}}

{{if .Tree}}<section id="document"><h2>Document</h2>{{template "tree" .Tree}}{{if .TreeNote}}<p class="note">{{.TreeNote}}</p>{{end}}</section>{{end}}

<section class="limits" id="limits"><h2>Limits of a result (MCP-RES v0.2.0 §9)</h2><ul>{{range .Limits}}<li>{{.}}</li>{{end}}</ul></section>
<footer>Written by {{.Generator}}. A self-contained page: no scripts, no external resources. The verdict above is the one the validator computed; the page only lays out the document and the results of the same checks as mcpres validate and mcpres attest verify.</footer>
</main>
</body>
</html>
{{define "table"}}<table class="data"><thead><tr>{{range .Cols}}<th>{{.Head}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr{{with .Class}} class="{{.}}"{{end}}>{{range $i, $c := .Cells}}{{with index $.Cols $i}}<td{{if .Mono}} class="mono"{{end}}><span class="lbl">{{.Head}}</span>{{if .Chip}}<span class="chip">{{$c}}</span>{{else}}{{$c}}{{end}}</td>{{end}}{{end}}</tr>
{{end}}</tbody></table>{{with .Note}}<p class="note">{{.}}</p>{{end}}{{end}}
{{define "tree"}}<ul class="tree">{{range .}}<li>{{if .Children}}<details open="open"><summary><span class="k">{{.Key}}</span> <span class="sum">{{.Summary}}</span></summary>{{template "tree" .Children}}</details>{{else if .Summary}}<span class="k">{{.Key}}</span> <span class="sum">{{.Summary}}</span>{{else}}<span class="k">{{.Key}}</span>: <span class="{{.Class}}">{{.Value}}</span>{{end}}</li>{{end}}</ul>{{end}}`
