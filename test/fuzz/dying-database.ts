import type { Database } from "@mp/db";
import fc from "fast-check";
import type pg from "pg";

/** A statement refused because the process that issued it is gone (a dying-database crash). */
export class ProcessGoneError extends Error {
  readonly code = "process_gone";
  constructor(statement: number) {
    super(`the process died before its statement ${statement} (fault injected)`);
  }
}

/** A database handle whose process dies at a chosen statement, and how far it got. */
export interface DyingDatabase {
  readonly db: Database;
  /** Statements issued so far (those refused after the death included). */
  readonly statements: number;
  readonly dead: boolean;
  /** The process dies now, whatever its `dieAt`: its next statement and every later one fail. */
  kill(): void;
}

/**
 * `db` as seen by a worker process that dies at its `dieAt`-th statement (1 = the first; 0: never):
 * that statement and every later one fail without reaching PostgreSQL, so the transaction in flight
 * rolls back (the death's only trace is what committed before) and whatever the process would have
 * done next never happens. Plays "a crash between the steps" of a DB-only pass (the drainer, the
 * transfer executor) at any statement, in one process, reproducibly.
 */
export function dyingDatabase(db: Database, dieAt: number): DyingDatabase {
  let statements = 0;
  let dead = false;
  const next = () => {
    statements++;
    if (dieAt > 0 && statements >= dieAt) dead = true;
    if (dead) throw new ProcessGoneError(statements);
  };
  const query = (<R extends pg.QueryResultRow>(text: string, params?: unknown[]) => {
    try {
      next();
    } catch (error) {
      return Promise.reject(error);
    }
    return db.query<R>(text, params);
  }) as Database["query"];
  const dying: Database = {
    get pool() {
      return db.pool;
    },
    connectionString: db.connectionString,
    engine: db.engine,
    query,
    tx: (fn, options) =>
      db.tx((client) => {
        // The callback's statements count (and die) as the process's; its client is otherwise the real one.
        const counted = new Proxy(client, {
          get(target, property, receiver) {
            if (property !== "query") return Reflect.get(target, property, receiver);
            return (...args: Parameters<pg.PoolClient["query"]>) => {
              try {
                next();
              } catch (error) {
                return Promise.reject(error);
              }
              return (target.query as (...a: unknown[]) => unknown)(...args);
            };
          },
        });
        return fn(counted);
      }, options),
    close: () => Promise.reject(new Error("a dying database is not closed: its real one is the test's")),
  };
  return {
    db: dying,
    get statements() {
      return statements;
    },
    get dead() {
      return dead;
    },
    kill() {
      dead = true;
    },
  };
}

/**
 * `pass` run by a process that dies at its `dieAt`-th statement on `db` (0: never dies): what it
 * committed before stays, the rest never happens. Resolves whether it died; any other error is thrown.
 */
export async function passDyingAt(
  db: Database,
  dieAt: number,
  pass: (on: Database) => Promise<unknown>,
): Promise<boolean> {
  if (dieAt === 0) {
    await pass(db);
    return false;
  }
  const dying = dyingDatabase(db, dieAt);
  await pass(dying.db).catch((error: unknown) => {
    if (!dying.dead) throw error;
  });
  return dying.dead;
}

/** A fuzz step's `dieAt` (passDyingAt): never (0, weight 2) or at a statement from 1 to `lastStatement` (weight `dying`). */
export function dieAtStatement(lastStatement: number, dying = 1): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: dying, arbitrary: fc.integer({ min: 1, max: lastStatement }) },
  );
}
