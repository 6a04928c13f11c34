import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { openDatabase } from "../../db/connection";
import { insertJudgment } from "../../db/queries/judgments";
import { all, sql, transaction } from "../../db/sql";
import { createCampaign } from "../../electron/services/annotation/campaigns";
import { createHandlers, Workbench } from "../../electron/services";
import { configureSync, runSync } from "../../electron/services/team/sync";
import {
  dispatch,
  type IssuedToken,
  type JudgingQueue,
} from "../../shared/api";
import { startServer } from "../helpers/cli";
import { PG_PASSWORD, startCluster } from "../helpers/postgres";
import { fillInstances } from "../helpers/synthetic";
import { percentile, type BenchContext, type Measurement } from "./harness";

/**
 * Team mode: 20 annotators judging at once against one `awb serve` in team mode on loopback
 * (each signed in with a token, each decision a real HTTP call that is authorised, validated,
 * committed and audited), and sync of 100,000 judgments through a throwaway PostgreSQL cluster.
 */

async function post(
  base: string,
  name: string,
  input: unknown,
  cookie: string,
): Promise<unknown> {
  const response = await fetch(`${base}/api/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify(input),
  });
  const result = (await response.json()) as {
    ok: boolean;
    value?: unknown;
    error?: { message: string };
  };
  if (!result.ok) throw new Error(`${name}: ${result.error?.message}`);
  return result.value;
}

async function judgingLoad(ctx: BenchContext): Promise<Measurement[]> {
  const annotators = Array.from(
    { length: 20 },
    (_, i) => `annotator-${String(i + 1).padStart(2, "0")}`,
  );
  const file = path.join(ctx.dir, "team-serve.db");
  const workbench = new Workbench({
    databasePath: file,
    mode: "browser",
    version: "bench",
  });
  fillInstances(workbench.db, ctx.quick ? 400 : 2000, 9);
  const campaign = createCampaign(workbench.db, {
    name: "Team load",
    protocol: "march-validation",
    annotators,
    perInstance: 3,
    seed: 4,
    selection: {},
  });
  const handlers = createHandlers(workbench);
  const tokens: string[] = [];
  await dispatch(handlers, "account:create", {
    name: "maria",
    role: "maintainer",
  });
  for (const name of annotators) {
    const made = await dispatch(handlers, "account:create", {
      name,
      role: "annotator",
    });
    if (!made.ok) throw new Error(made.error.message);
    tokens.push((made.value as IssuedToken).token);
  }
  workbench.close();

  const server = await startServer(["--db", file]);
  try {
    const perAnnotator = ctx.quick ? 20 : 60;
    const run = async (thinkMs: (k: number, i: number) => number) => {
      const latencies: number[] = [];
      const started = performance.now();
      await Promise.all(
        annotators.map(async (name, i) => {
          const login = await fetch(`${server.url}/api/session/login`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ token: tokens[i] }),
          });
          const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
          const session = { campaignId: campaign.id, annotator: name };
          const queue = (await post(
            server.url,
            "judging:queue",
            { session },
            cookie,
          )) as JudgingQueue;
          for (let k = 0; k < perAnnotator; k++) {
            const item = queue.items[k % queue.items.length]!;
            const t = performance.now();
            await post(
              server.url,
              "judging:decide",
              {
                session,
                instanceId: item.instanceId,
                criterion: "ambiguity",
                value: k % 3 ? "yes" : "no",
                itemMs: 1200,
              },
              cookie,
            );
            latencies.push(performance.now() - t);
            const pause = thinkMs(k, i);
            if (pause > 0) await new Promise((r) => setTimeout(r, pause));
          }
        }),
      );
      return { latencies, seconds: (performance.now() - started) / 1000 };
    };
    // Annotators read before they decide: a pause of 50 to 250 ms between decisions (people take
    // seconds, so this is some ten times their pace). Then the same with no pause at all.
    const paced = await run((k, i) => 50 + ((k * 37 + i * 101) % 200));
    const flat = await run(() => 0);
    return [
      {
        name: `team: 20 annotators judging at once over HTTP, signed in, p95 decision latency (${paced.latencies.length} decisions)`,
        value: percentile(paced.latencies, 95),
        unit: "ms",
        target: { max: 50 },
      },
      {
        name: "team: same, median decision latency",
        value: percentile(paced.latencies, 50),
        unit: "ms",
      },
      {
        name: "team: 20 annotators deciding back to back with no pause (stress), p95 latency",
        value: percentile(flat.latencies, 95),
        unit: "ms",
      },
      {
        name: "team: same stress, decisions per second (all annotators)",
        value: flat.latencies.length / flat.seconds,
        unit: "/s",
      },
    ];
  } finally {
    await server.stop();
  }
}

async function syncVolume(ctx: BenchContext): Promise<Measurement[]> {
  const N = ctx.quick ? 2_000 : 100_000;
  const cluster = await startCluster();
  process.env.PGPASSWORD = PG_PASSWORD;
  try {
    await cluster.createDatabase("bench");
    const url = cluster.bareUrl("bench");
    const makeDb = (name: string) => openDatabase(path.join(ctx.dir, name));
    const maintainer = makeDb("sync-maintainer.db");
    fillInstances(maintainer, 2000, 3);
    const campaign = createCampaign(maintainer, {
      name: "Sync volume",
      protocol: "march-validation",
      annotators: ["alice", "bob"],
      seed: 1,
      selection: {},
    });
    configureSync(maintainer, { postgres: url, role: "maintainer" });
    await runSync(maintainer);
    maintainer.pragma("wal_checkpoint(TRUNCATE)");
    fs.copyFileSync(
      path.join(ctx.dir, "sync-maintainer.db"),
      path.join(ctx.dir, "sync-alice.db"),
    );
    const alice = makeDb("sync-alice.db");
    configureSync(alice, {
      postgres: url,
      role: "annotator",
      annotator: "alice",
    });
    const assignments = all<{ id: number }>(
      alice,
      sql`SELECT s.id FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.campaign_id = ${campaign.id} AND a.name = 'alice'`,
    );
    transaction(alice, () => {
      for (let i = 0; i < N; i++) {
        insertJudgment(alice, {
          uid: randomUUID(),
          assignmentId: assignments[i % assignments.length]!.id,
          criterion: ["ambiguity", "clarification", "long_answer"][i % 3]!,
          value: i % 4 ? "yes" : "no",
          comment: "",
          source: "app",
          itemMs: 900,
          createdAt: new Date().toISOString(),
        });
      }
    });
    let t = performance.now();
    const pushed = await runSync(alice);
    const pushSeconds = (performance.now() - t) / 1000;
    if (pushed.pushed !== N)
      throw new Error(`pushed ${pushed.pushed}, expected ${N}`);
    t = performance.now();
    const pulled = await runSync(maintainer);
    const pullSeconds = (performance.now() - t) / 1000;
    if (pulled.pulled !== N)
      throw new Error(`pulled ${pulled.pulled}, expected ${N}`);
    alice.close();
    maintainer.close();
    return [
      {
        name: `team: sync pushing ${N.toLocaleString("en-US")} judgments from a desktop to PostgreSQL`,
        value: pushSeconds,
        unit: "s",
        target: { max: 10 },
      },
      {
        name: `team: sync pulling ${N.toLocaleString("en-US")} judgments into the maintainer's desktop`,
        value: pullSeconds,
        unit: "s",
        target: { max: 10 },
      },
    ];
  } finally {
    await cluster.destroy();
  }
}

export async function benchTeam(ctx: BenchContext): Promise<Measurement[]> {
  return [...(await judgingLoad(ctx)), ...(await syncVolume(ctx))];
}
