// Seed3D REST API v1 client for the browser: fetch with the optional API key, problem+json errors,
// server-sent job events read from a fetch stream (EventSource cannot send an Authorization header).

/** An error answered by the service (application/problem+json) or by the network. */
export class ApiError extends Error {
  constructor(message, { status = 0, code = null, requestId = null } = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);

/** True when a job status is final. */
export function isTerminal(status) {
  return TERMINAL.has(status);
}

/** Client of one Seed3D service; `base` is the page's origin by default. */
export class Seed3DClient {
  constructor({ base = "", apiKey = "" } = {}) {
    this.base = base.replace(/\/+$/, "");
    this.apiKey = apiKey;
  }

  /** Headers every request carries. */
  headers(extra = {}) {
    const h = { ...extra };
    if (this.apiKey) h.Authorization = `Bearer ${this.apiKey}`;
    return h;
  }

  /** Absolute URL of a service path (paths in job links are already rooted). */
  url(path) {
    return /^https?:/.test(path) ? path : this.base + path;
  }

  async request(method, path, { json, body, headers = {}, signal } = {}) {
    const init = { method, headers: this.headers(headers), signal };
    if (json !== undefined) {
      init.body = JSON.stringify(json);
      init.headers["Content-Type"] = "application/json";
    } else if (body !== undefined) {
      init.body = body;
    }
    let resp;
    try {
      resp = await fetch(this.url(path), init);
    } catch (err) {
      if (err.name === "AbortError") throw err;
      throw new ApiError(`cannot reach the service (${err.message})`);
    }
    if (!resp.ok) throw await problem(resp);
    return resp;
  }

  async json(method, path, options) {
    return (await this.request(method, path, options)).json();
  }

  /** GET /healthz. */
  health() {
    return this.json("GET", "/healthz");
  }

  /** POST /v1/uploads with one image file; returns the upload token. */
  async upload(file) {
    const form = new FormData();
    form.append("file", file, file.name || "image.png");
    const answer = await this.json("POST", "/v1/uploads", { body: form });
    return answer.upload_token;
  }

  /** POST a job request (JSON body) to `path`; the same Idempotency-Key again gets the same job. Returns the job. */
  submitJob(path, spec, idempotencyKey) {
    const headers = idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {};
    return this.json("POST", path, { json: spec, headers });
  }

  /** POST /v1/generations (JSON body); returns the queued job. */
  createGeneration(spec, idempotencyKey) {
    return this.submitJob("/v1/generations", spec, idempotencyKey);
  }

  /** POST /v1/scenes (JSON body: text, seed, room_size); returns the queued job (followed like a generation). */
  createScene(spec, idempotencyKey) {
    return this.submitJob("/v1/scenes", spec, idempotencyKey);
  }

  /** GET /v1/generations/{id}. */
  job(id) {
    return this.json("GET", `/v1/generations/${encodeURIComponent(id)}`);
  }

  /** POST /v1/generations/{id}/cancel. */
  cancel(id) {
    return this.json("POST", `/v1/generations/${encodeURIComponent(id)}/cancel`);
  }

  /** GET /v1/generations (newest first, one page). */
  list(limit = 10) {
    return this.json("GET", `/v1/generations?limit=${limit}`);
  }

  /** Fetch a file of a job as a Response (GLB, asset.json, …). */
  file(url, signal) {
    return this.request("GET", url, { signal });
  }

  /**
   * Follow a job until it ends: server-sent events first, polling when the stream fails. Calls
   * `onJob(job)` for every state seen; resolves with the final job. `signal` aborts the wait.
   */
  async follow(job, onJob, { signal, pollMs = 1000 } = {}) {
    onJob(job);
    if (isTerminal(job.status)) return job;
    let last = job;
    try {
      last = await this.streamEvents(job, (j) => {
        last = j;
        onJob(j);
      }, signal);
      if (isTerminal(last.status)) return last;
    } catch (err) {
      if (err.name === "AbortError") throw err;
      console.info(`seed3d: event stream unavailable (${err.message}); polling instead`);
    }
    while (!isTerminal(last.status)) {
      await sleep(pollMs, signal);
      last = await this.json("GET", job.links?.self || `/v1/generations/${job.id}`, { signal });
      onJob(last);
    }
    return last;
  }

  /** Read `text/event-stream` job events; resolves with the last job when the stream closes. */
  async streamEvents(job, onJob, signal) {
    const path = job.links?.events || `/v1/generations/${job.id}/events`;
    const resp = await this.request("GET", path, { headers: { Accept: "text/event-stream" }, signal });
    if (!resp.body) throw new ApiError("the browser cannot stream the response body");
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let last = job;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = parseEvent(block);
        if (event && event.type === "job" && event.data) {
          last = JSON.parse(event.data);
          onJob(last);
          if (isTerminal(last.status)) {
            await reader.cancel().catch(() => {});
            return last;
          }
        }
      }
    }
    return last;
  }
}

/** One SSE block -> {type, data} (comments and unknown fields ignored). */
export function parseEvent(block) {
  let type = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") type = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { type, data: data.join("\n") } : null;
}

async function problem(resp) {
  const requestId = resp.headers.get("X-Request-ID");
  let title = resp.statusText || `HTTP ${resp.status}`;
  let detail = "";
  let code = null;
  try {
    const body = await resp.json();
    title = body.title || title;
    detail = typeof body.detail === "string" ? body.detail : body.detail ? JSON.stringify(body.detail) : "";
    code = body.code || null;
  } catch {
    // not JSON: keep the status line
  }
  const message = detail ? `${title}: ${detail}` : title;
  return new ApiError(message, { status: resp.status, code, requestId });
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("aborted", "AbortError"));
    }, { once: true });
  });
}
