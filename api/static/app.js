// Seed3D web page: submit a prompt or an image (or a room sentence: a scene), follow the job live, view the GLB, drive
// its joints, see what a scene left out, download.

import { ApiError, Seed3DClient, isTerminal } from "./client.js";

const $ = (id) => document.getElementById(id);
const KEY_STORE = "seed3d.apiKey";

const client = new Seed3DClient({ apiKey: localStorage.getItem(KEY_STORE) || "" });
let viewer = null;
let viewerError = null;
let current = null; // {id, abort: AbortController}
let mode = "object"; // which form shows: "object" (POST /v1/generations) or "scene" (POST /v1/scenes)
window.seed3d = { client, get viewer() { return viewer; } };

async function makeViewer() {
  try {
    const { Viewer } = await import("./viewer.js");
    viewer = new Viewer($("viewer"));
  } catch (err) {
    viewerError = err;
    $("viewer").dataset.state = "unavailable";
    $("viewer-note").textContent = `The 3D view is unavailable in this browser (${err.message}); the files below still download.`;
    console.warn("seed3d: 3D view unavailable:", err);
  }
}

// ---------------------------------------------------------------------------------------------- mode

/** Show the object form or the scene form (the job, its result and the downloads below serve both). */
function setMode(next) {
  mode = next === "scene" ? "scene" : "object";
  for (const tab of document.querySelectorAll(".tabs [role=tab]")) {
    const selected = tab.dataset.mode === mode;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  $("generate-form").hidden = mode !== "object";
  $("scene-form").hidden = mode !== "scene";
  document.body.dataset.mode = mode;
}

// ---------------------------------------------------------------------------------------------- form

function formSpec() {
  const text = $("prompt").value.trim();
  const seed = Number($("seed").value);
  if (!Number.isInteger(seed) || seed < 0) throw new ApiError("Seed must be a whole number, 0 or more.");
  const faces = Number($("target-faces").value);
  if (!Number.isInteger(faces) || faces < 1) throw new ApiError("Target faces must be a whole number above 0.");
  const optional = (id, what, min) => {
    const raw = $(id).value.trim();
    if (!raw) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new ApiError(`${what} must be a whole number, ${min} or more.`);
    return value;
  };
  const steps = optional("steps", "Sampling steps", 1);
  const resolution = optional("resolution", "Resolution", 32);
  const checked = (name) => [...document.querySelectorAll(`input[name=${name}]:checked`)].map((el) => el.value);
  const formats = checked("format");
  if (!formats.length) throw new ApiError("Choose at least one format.");
  return {
    text: text || undefined,
    seed,
    stages: checked("stage"),
    target_faces: faces,
    texture_size: Number($("texture-size").value),
    formats,
    steps,
    resolution,
    generator: $("generator").value,
    params: parseParams($("params").value),
    require_valid: $("require-valid").checked || undefined,
  };
}

/** The "Program parameters" field (NAME=VALUE lines) as an object, or undefined when empty. Values stay text (the
 * service converts them); a comma makes a per-item list, an empty item keeps that item's own value (null). */
function parseParams(text) {
  const params = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const cut = line.indexOf("=");
    const name = cut < 0 ? "" : line.slice(0, cut).trim();
    if (!name) throw new ApiError(`Program parameters: each line is NAME=VALUE, got "${line}".`);
    const value = line.slice(cut + 1).trim();
    params[name] = value.includes(",") ? value.split(",").map((v) => v.trim() || null) : value;
  }
  return Object.keys(params).length ? params : undefined;
}

/** A parameter's value as the field shows it (lists comma-separated, an item's own value left empty). */
function paramText(value) {
  return Array.isArray(value) ? value.map((v) => (v == null ? "" : String(v))).join(", ") : String(value);
}

/** The scene form as a POST /v1/scenes body; the service checks the ranges (its problem text is shown). */
function sceneSpec() {
  const text = $("scene-text").value.trim();
  if (!text) throw new ApiError("Describe the room, e.g. a kitchen with a fridge and a table with two chairs.");
  const seed = Number($("scene-seed").value);
  if (!Number.isInteger(seed) || seed < 0) throw new ApiError("Seed must be a whole number, 0 or more.");
  const size = ["room-width", "room-depth", "room-height"].map((id) => $(id).value.trim());
  let room_size;
  if (size.some(Boolean)) {
    if (!size[0] || !size[1]) throw new ApiError("Room size: give the width and the depth (the height may stay empty).");
    room_size = size.filter(Boolean).map(Number);
    if (room_size.some((v) => !Number.isFinite(v))) throw new ApiError("Room size: numbers in metres, e.g. 4.5.");
  }
  return { text, seed, room_size };
}

async function submit(event) {
  event.preventDefault();
  showFormError(null);
  const file = $("image").files[0];
  let spec;
  try {
    spec = formSpec();
    if (!spec.text && !file) throw new ApiError("Write a prompt or choose an image.");
  } catch (err) {
    showFormError(err.message);
    return;
  }
  await startJob($("submit"), async () => {
    if (file) spec.upload_token = await client.upload(file);
    return client.createGeneration(spec, crypto.randomUUID());
  });
}

async function submitScene(event) {
  event.preventDefault();
  showFormError(null);
  let spec;
  try {
    spec = sceneSpec();
  } catch (err) {
    showFormError(err.message);
    return;
  }
  await startJob($("scene-submit"), () => client.createScene(spec, crypto.randomUUID()));
}

/** Submit with `create` (resolves with the queued job; one Idempotency-Key per submission), then follow the job. */
async function startJob(button, create) {
  setBusy(button, true);
  try {
    const job = await create();
    history.replaceState(null, "", `#job=${encodeURIComponent(job.id)}`);
    await openJob(job);
  } catch (err) {
    showFormError(err.message);
  } finally {
    setBusy(button, false);
  }
}

function setBusy(button, busy) {
  button.dataset.label ??= button.textContent;
  button.disabled = busy;
  button.textContent = busy ? "Working…" : button.dataset.label;
}

/** The error line of the form that shows (the service's problem text for a refused request). */
function showFormError(message) {
  const shown = mode === "scene" ? "scene-error" : "form-error";
  for (const id of ["form-error", "scene-error"]) {
    $(id).hidden = id !== shown || !message;
    $(id).textContent = id === shown ? message || "" : "";
  }
}

function showCancel(show) {
  $("cancel").hidden = !show;
  $("scene-cancel").hidden = !show;
}

// ------------------------------------------------------------------------------------------------ jobs

/** Show `job` (a generation or a scene) and follow it to the end (events, else polling); then show its result. */
async function openJob(job) {
  current?.abort.abort();
  const abort = new AbortController();
  current = { id: job.id, abort };
  resetResult();
  setMode(job.kind === "scene" ? "scene" : "object");
  $("job").hidden = false;
  $("job").dataset.kind = job.kind || "generation";
  $("job-id").textContent = job.id;
  showCancel(!isTerminal(job.status));
  $("job").scrollIntoView({ block: "nearest" });
  try {
    const final = await client.follow(job, renderJob, { signal: abort.signal });
    if (current?.id !== job.id) return;
    showCancel(false);
    if (final.status === "succeeded") await showResult(final, abort.signal);
    else if (final.files?.length) renderDownloads(final.files, final.kind); // refused (require_valid): its report says why
    refreshRecent();
  } catch (err) {
    if (err.name !== "AbortError") showJobError(err.message);
  }
}

function renderJob(job) {
  if (current?.id !== job.id) return;
  const status = $("job-status");
  status.textContent = job.status;
  status.dataset.status = job.status;
  const message = job.message && !isTerminal(job.status) ? ` — ${job.message}` : "";
  $("job-stage").textContent = job.stage && !isTerminal(job.status) ? `stage: ${job.stage}${message}` : "";
  $("job-queue").textContent = job.status === "queued" && job.queue_position != null
    ? `position in queue: ${job.queue_position}` : "";
  $("job-progress").value = Number(job.progress) || 0;
  $("job").dataset.status = job.status;
  showCancel(!isTerminal(job.status));
  if (job.error) showJobError(`${job.error.code}: ${job.error.detail}`);
  renderVerdict(job);
  renderTimings(job.timings || {});
  renderMadeBy(job);
  renderScene(job);
}

/** A scene's result: how many objects, whether they collide, each relation it could not meet, and first of all what
 * the sentence named that the scene left out or built as a stand-in (each with its reason), or that it built all. */
function renderScene(job) {
  const result = job.result;
  if (job.kind !== "scene" || !result) {
    $("scene-result").hidden = true;
    return;
  }
  const count = Number(result.objects) || 0;
  $("scene-objects").textContent = String(count);
  $("scene-objects-word").textContent = count === 1 ? "object" : "objects";
  const free = result.collision_free;
  $("scene-collision").textContent = free == null ? "collisions not checked" : free ? "collision-free" : "has collisions";
  $("scene-collision").dataset.ok = free == null ? "unknown" : String(Boolean(free));
  const omissions = result.omissions || [];
  $("omission-list").replaceChildren(...omissions.map(omissionItem));
  $("omission-list").hidden = !omissions.length;
  $("omissions-none").hidden = Boolean(omissions.length);
  $("omissions").dataset.none = String(!omissions.length);
  const unmet = result.unmet || [];
  $("unmet-list").replaceChildren(...unmet.map((relation) => {
    const li = document.createElement("li");
    li.textContent = typeof relation === "string" ? relation : JSON.stringify(relation);
    return li;
  }));
  $("scene-unmet").hidden = !unmet.length;
  $("scene-result").hidden = false;
}

/** One omission (seed3d/scene/omissions.py): "piano — left out: why", "sink cabinet — built as a cabinet: why". */
function omissionItem(omission) {
  const li = document.createElement("li");
  li.dataset.noun = omission.noun;
  li.dataset.status = omission.status;
  const noun = document.createElement("strong");
  noun.className = "noun";
  noun.textContent = omission.noun;
  const what = document.createElement("span");
  what.className = "what";
  const objects = (omission.objects || []).filter(Boolean);
  if (omission.status === "substituted") {
    what.textContent = `built as ${article(String(omission.stand_in || "?").replaceAll("_", " "))}`;
  } else if (omission.status === "left out" && objects.length && objects.join() !== omission.noun) {
    what.textContent = `left out (${objects.join(", ")})`;
  } else {
    what.textContent = omission.status || "left out";
  }
  const reason = document.createElement("span");
  reason.className = "reason";
  reason.textContent = omission.reason || "";
  li.append(noun, " — ", what, omission.reason ? ": " : "", reason);
  return li;
}

function article(word) {
  return `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
}

/** Whether the job's asset passed validation: valid, physically sound, functional, and each failed check. */
function renderVerdict(job) {
  const result = job.result;
  if (!result || result.valid == null) {
    $("verdict").hidden = true;
    return;
  }
  const word = (value) => (value == null ? "not checked" : value ? "yes" : "no");
  $("verdict-valid").textContent = result.valid ? "valid" : "not valid";
  $("verdict-valid").dataset.valid = String(Boolean(result.valid));
  for (const [id, value] of [["verdict-sound", result.sound], ["verdict-functional", result.functional]]) {
    $(id).textContent = word(value);
    $(id).dataset.ok = String(value !== false);
  }
  const failures = result.failures || (result.failed_checks || []).map((name) => ({ name, message: "" }));
  $("verdict-failed").replaceChildren(...failures.map((failure) => {
    const li = document.createElement("li");
    li.dataset.check = failure.name;
    const name = document.createElement("span");
    name.className = "check-name";
    name.textContent = failure.name;
    li.append(name, failure.message ? ` — ${failure.message}` : "");
    return li;
  }));
  $("verdict").hidden = false;
}

/** Which path made the object and why; for a program its category, confidence, every parameter (editable, to
 * re-run with a change) and the phrases it could not place. */
function renderMadeBy(job) {
  const made = job.result?.generator;
  if (!made || $("made-by").dataset.job === job.id) return;
  $("made-by").dataset.job = job.id;
  $("made-by").dataset.path = made.path;
  $("made-path").textContent = made.path;
  $("made-why").textContent = made.why || "";
  const program = made.program;
  $("program").hidden = !program;
  $("made-by").hidden = false;
  if (!program) return;
  const fit = program.fit?.target ? ` · size asked → built: ${Object.entries(program.fit.target).map(([dim, want]) =>
    `${dim} ${Number(want).toFixed(2)} → ${Number(program.fit.built?.[dim]).toFixed(2)} m`).join(", ")}` : "";
  const confidence = program.confidence != null ? ` · confidence ${Number(program.confidence).toFixed(2)}` : "";
  $("program-summary").textContent = `${program.category}${confidence}${fit}`;
  const lines = [...(program.unplaced || []).map((p) => `not placed: ${p}`), ...(program.notes || [])];
  $("program-unplaced").replaceChildren(...lines.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  const given = new Set(program.given || []);
  const body = $("program-params").tBodies[0];
  body.replaceChildren(...Object.entries(program.params || {}).map(([name, value]) => {
    const tr = document.createElement("tr");
    const label = cell(name);
    if (given.has(name)) {
      label.className = "given";
      label.title = "from the prompt or the request";
    }
    const input = document.createElement("input");
    Object.assign(input, { type: "text", value: paramText(value), spellcheck: false });
    input.dataset.param = name;
    input.dataset.original = input.value;
    input.setAttribute("aria-label", name);
    const td = document.createElement("td");
    td.append(input);
    tr.append(label, td);
    return tr;
  }));
  $("rerun").dataset.text = job.options?.text || "";
  $("rerun").dataset.seed = String(job.options?.seed ?? 0);
  $("rerun").dataset.params = JSON.stringify(job.options?.params || {});
}

/** Re-run the shown program: its prompt and seed, the parameters its request set and those changed here. */
function rerun() {
  const params = JSON.parse($("rerun").dataset.params || "{}");
  for (const input of $("program-params").querySelectorAll("input[data-param]")) {
    if (input.value.trim() !== input.dataset.original) params[input.dataset.param] = input.value.trim();
  }
  $("prompt").value = $("rerun").dataset.text;
  $("seed").value = $("rerun").dataset.seed;
  $("generator").value = "program";
  $("params").value = Object.entries(params).map(([name, value]) => `${name}=${paramText(value)}`).join("\n");
  $("generate-form").requestSubmit();
}

function renderTimings(timings) {
  const rows = Object.entries(timings);
  const body = $("job-timings").tBodies[0];
  body.replaceChildren(...rows.map(([stage, seconds]) => {
    const tr = document.createElement("tr");
    tr.append(cell(stage), cell(`${Number(seconds).toFixed(1)} s`));
    return tr;
  }));
  $("job-timings").hidden = !rows.length;
}

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function showJobError(message) {
  $("job-error").hidden = false;
  $("job-error").textContent = message;
}

async function cancelJob() {
  if (!current) return;
  const buttons = [$("cancel"), $("scene-cancel")];
  for (const button of buttons) button.disabled = true;
  try {
    renderJob(await client.cancel(current.id));
  } catch (err) {
    showJobError(err.message);
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------- result

function resetResult() {
  $("job-error").hidden = true;
  $("scene-result").hidden = true;
  $("omission-list").replaceChildren();
  $("unmet-list").replaceChildren();
  $("verdict").hidden = true;
  $("verdict-failed").replaceChildren();
  $("made-by").hidden = true;
  delete $("made-by").dataset.job;
  $("job-timings").hidden = true;
  $("joints").hidden = true;
  $("joint-list").replaceChildren();
  $("downloads").hidden = true;
  $("download-list").replaceChildren();
  $("preview").hidden = true;
  $("viewer-note").hidden = false;
  $("viewer-note").textContent = viewerError ? $("viewer-note").textContent : "Your asset appears here.";
  viewer?.clear();
}

async function showResult(job, signal) {
  const files = job.files || [];
  renderDownloads(files, job.kind);
  const byName = Object.fromEntries(files.map((f) => [f.name, f]));
  const glb = byName["model.glb"] || files.find((f) => f.name.endsWith(".glb"));
  const preview = byName["preview.png"];
  if (!glb || !viewer) {
    $("viewer-note").textContent = !glb ? "This job has no GLB to view; its files are below." : $("viewer-note").textContent;
    // a scene's overview stands for the whole result: it replaces the note (a generation keeps saying why)
    if (preview && (await showPreview(preview, job.id, signal)) && job.kind === "scene" && !glb) {
      $("viewer-note").hidden = true;
    }
    return;
  }
  $("viewer-note").textContent = "Loading the model…";
  try {
    const buffer = await (await client.file(glb.url, signal)).arrayBuffer();
    if (current?.id !== job.id) return;
    await viewer.show(buffer);
    $("viewer-note").hidden = true;
  } catch (err) {
    if (err.name === "AbortError") return;
    $("viewer-note").textContent = `Cannot show the model: ${err.message}`;
    $("viewer").dataset.state = "error";
    if (preview) showPreview(preview, job.id, signal);
    return;
  }
  if (byName["asset.json"]) {
    try {
      const asset = await (await client.file(byName["asset.json"].url, signal)).json();
      if (current?.id === job.id) renderJoints(viewer.bindJoints(asset));
    } catch (err) {
      if (err.name !== "AbortError") showJobError(`Cannot read the joints: ${err.message}`);
    }
  }
}

/** Show a job's PNG (fetched with the API key); resolves true when it shows. */
async function showPreview(file, jobId, signal) {
  try {
    const blob = await (await client.file(file.url, signal)).blob();
    if (current?.id !== jobId) return false;
    if ($("preview").src.startsWith("blob:")) URL.revokeObjectURL($("preview").src);
    $("preview").src = URL.createObjectURL(blob);
    $("preview").hidden = false;
    return true;
  } catch (err) {
    if (err.name !== "AbortError") console.warn("seed3d: preview unavailable:", err.message);
    return false;
  }
}

function renderJoints(controls) {
  const list = $("joint-list");
  list.replaceChildren();
  for (const control of controls) {
    const row = document.createElement("div");
    row.className = "joint";
    const id = `joint-${control.name}`;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = `${control.name}`;
    label.title = `${control.type} joint: ${control.parent} → ${control.child}`;
    const slider = document.createElement("input");
    Object.assign(slider, {
      id, type: "range", min: String(control.lower), max: String(control.upper),
      step: "any", value: String(control.value), // "any": the ends are the exact joint limits
    });
    slider.dataset.joint = control.name;
    slider.dataset.type = control.type;
    const out = document.createElement("output");
    out.htmlFor = id;
    out.textContent = control.label();
    slider.addEventListener("input", () => {
      out.textContent = control.label(viewer.setJoint(control.name, Number(slider.value)));
    });
    row.append(label, slider, out);
    list.append(row);
  }
  $("joints").hidden = !controls.length;
}

function resetJoints() {
  for (const slider of $("joint-list").querySelectorAll("input[type=range]")) {
    const control = viewer.joints.find((j) => j.name === slider.dataset.joint);
    slider.value = String(Math.min(Math.max(0, control.lower), control.upper));
    slider.dispatchEvent(new Event("input"));
  }
}

const KIND = {
  "model.glb": "GLB model", "urdf.zip": "URDF package", "mjcf.zip": "MJCF package", "model.usdz": "USDZ",
  "preview.png": "preview image", "report.json": "validation report", "asset.json": "parts and joints",
};

/** What a scene's files hold where they differ from a generation's. */
const SCENE_KIND = { "model.usdz": "USDZ scene", "preview.png": "overview image", "report.json": "scene report" };

function renderDownloads(files, kind) {
  const kinds = kind === "scene" ? { ...KIND, ...SCENE_KIND } : KIND;
  const list = $("download-list");
  list.replaceChildren(...files.map((file) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = client.url(file.url);
    a.download = file.name;
    a.className = "download button";
    a.dataset.name = file.name;
    a.textContent = file.name;
    a.addEventListener("click", (event) => downloadWithKey(event, file));
    const what = document.createElement("span");
    what.className = "hint";
    what.textContent = ` ${kinds[file.name] || file.content_type} · ${formatSize(file.size)}`;
    li.append(a, what);
    return li;
  }));
  $("downloads").hidden = !files.length;
}

/** With an API key a plain link cannot authenticate: fetch the file with the key and save the blob. */
async function downloadWithKey(event, file) {
  if (!client.apiKey) return;
  event.preventDefault();
  try {
    const blob = await (await client.file(file.url)).blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = file.name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  } catch (err) {
    showJobError(err.message);
  }
}

function formatSize(bytes) {
  if (bytes == null) return "";
  const units = ["B", "KB", "MB", "GB"];
  let value = Number(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit ? 1 : 0)} ${units[unit]}`;
}

// ---------------------------------------------------------------------------------------- recent + boot

async function refreshRecent() {
  try {
    const page = await client.list(8);
    const items = page.items || [];
    $("recent-list").replaceChildren(...items.map((job) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `#job=${encodeURIComponent(job.id)}`;
      a.textContent = job.options?.text || job.options?.name || job.id;
      a.title = job.id;
      const status = document.createElement("span");
      status.className = "badge small";
      status.dataset.status = job.status;
      status.textContent = job.status;
      li.dataset.kind = job.kind || "generation";
      li.append(status, " ");
      if (job.kind === "scene") {
        const kind = document.createElement("span");
        kind.className = "badge small kind";
        kind.textContent = "scene";
        li.append(kind, " ");
      }
      li.append(a);
      if (job.result?.valid === false) {
        const invalid = document.createElement("span");
        invalid.className = "badge small";
        invalid.dataset.status = "failed";
        invalid.dataset.valid = "false";
        invalid.textContent = "not valid";
        invalid.title = `failed checks: ${(job.result.failed_checks || []).join(", ")}`;
        li.append(" ", invalid);
      }
      return li;
    }));
    $("recent").hidden = !items.length;
  } catch (err) {
    $("recent").hidden = true;
    if (err.status !== 401 && err.status !== 403) console.info("seed3d: no recent jobs:", err.message);
  }
}

async function openFromHash() {
  const match = /^#job=(.+)$/.exec(location.hash);
  if (!match) return;
  const id = decodeURIComponent(match[1]);
  if (current?.id === id) return;
  try {
    await openJob(await client.job(id));
  } catch (err) {
    showFormError(`Cannot open job ${id}: ${err.message}`);
  }
}

/** Show the service's state; resolves with its health (null when unreachable). */
async function checkHealth() {
  const badge = $("health");
  try {
    const health = await client.health();
    badge.textContent = health.status === "ok" ? "service ready" : `service: ${health.status}`;
    badge.dataset.ok = String(health.status === "ok");
    if (health.api_keys && !client.apiKey) {
      $("access").open = true;
      $("api-key").placeholder = "this service asks for an API key";
    }
    return health;
  } catch (err) {
    badge.textContent = "service unreachable";
    badge.dataset.ok = "false";
    return null;
  }
}

function wire() {
  $("generate-form").addEventListener("submit", submit);
  $("scene-form").addEventListener("submit", submitScene);
  const tabs = [...document.querySelectorAll(".tabs [role=tab]")];
  for (const tab of tabs) {
    tab.addEventListener("click", () => {
      setMode(tab.dataset.mode);
      showFormError(null);
    });
    tab.addEventListener("keydown", (event) => { // the tab list's arrow keys move between its tabs
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
      next.click();
      next.focus();
    });
  }
  $("cancel").addEventListener("click", cancelJob);
  $("scene-cancel").addEventListener("click", cancelJob);
  $("joints-reset").addEventListener("click", resetJoints);
  $("rerun").addEventListener("click", rerun);
  for (const [button, input] of [["seed-random", "seed"], ["scene-seed-random", "scene-seed"]]) {
    $(button).addEventListener("click", () => {
      $(input).value = String(crypto.getRandomValues(new Uint32Array(1))[0] % 2 ** 31);
    });
  }
  $("image").addEventListener("change", () => {
    const file = $("image").files[0];
    $("image-clear").hidden = !file;
    $("image-preview").hidden = !file;
    if (file) $("image-preview").src = URL.createObjectURL(file);
  });
  $("image-clear").addEventListener("click", () => {
    $("image").value = "";
    $("image").dispatchEvent(new Event("change"));
  });
  const key = $("api-key");
  key.value = client.apiKey;
  key.addEventListener("change", () => {
    client.apiKey = key.value.trim();
    if (client.apiKey) localStorage.setItem(KEY_STORE, client.apiKey);
    else localStorage.removeItem(KEY_STORE);
    refreshRecent();
  });
  window.addEventListener("hashchange", openFromHash);
}

wire();
setMode("object");
await makeViewer();
document.body.dataset.ready = "true";
openFromHash();
checkHealth().then((health) => {
  if (health && (!health.api_keys || client.apiKey)) refreshRecent();
});
