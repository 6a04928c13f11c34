/**
 * The shared store's schema, one numbered step at a time. Append only: a shipped step never
 * changes. Each applies in one transaction together with its row in `awb_schema_versions`.
 *
 * Judgments are append-only and keyed by their uid (the same uid as in each desktop's SQLite
 * file), so pushing twice stores them once. `seq` is the order in which they reached the store:
 * desktops pull by it, never by their clocks. `prior_uid` is the judgment the writer had in front
 * of them for the same criterion (null for a first decision), which is how a pull tells a later
 * edit from two edits made apart (a conflict). Deleted campaigns leave a tombstone.
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const pgMigrations: readonly PgMigration[] = [
  {
    version: 1,
    name: 'campaigns-and-judgments',
    sql: `
      CREATE TABLE awb_campaigns (
        uid text PRIMARY KEY,
        name text NOT NULL,
        blind boolean NOT NULL,
        published_by text NOT NULL,
        published_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      );
      CREATE TABLE awb_assignments (
        campaign_uid text NOT NULL REFERENCES awb_campaigns(uid) ON DELETE CASCADE,
        annotator text NOT NULL,
        instance_id integer NOT NULL,
        position integer NOT NULL,
        PRIMARY KEY (campaign_uid, annotator, instance_id)
      );
      CREATE TABLE awb_judgments (
        seq bigserial PRIMARY KEY,
        uid text NOT NULL UNIQUE,
        campaign_uid text NOT NULL REFERENCES awb_campaigns(uid) ON DELETE CASCADE,
        annotator text NOT NULL,
        instance_id integer NOT NULL,
        criterion text NOT NULL,
        value text,
        comment text NOT NULL DEFAULT '',
        source text NOT NULL,
        item_ms integer,
        created_at text NOT NULL,
        prior_uid text,
        device text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX awb_judgments_campaign ON awb_judgments (campaign_uid, seq);
    `,
  },
  {
    // What a desktop that lacks a campaign needs to judge it: the campaign's settings and protocol
    // document, its annotators, and each of its instances as an awb-instance/1 record, keyed by the
    // stable instance key (dataset / base question source id / ambiguity type, as releases key
    // them). `awb_campaign_instances` ties the instance ids the store's assignments and judgments
    // carry (the publishing desktop's) to those keys, so each desktop maps them to its own ids.
    version: 2,
    name: 'campaign-contents',
    sql: `
      CREATE TABLE awb_campaign_contents (
        campaign_uid text PRIMARY KEY REFERENCES awb_campaigns(uid) ON DELETE CASCADE,
        protocol_key text NOT NULL,
        protocol_version integer NOT NULL,
        protocol_built_in boolean NOT NULL,
        protocol text NOT NULL,
        selection text NOT NULL,
        per_instance integer NOT NULL,
        seed bigint NOT NULL
      );
      CREATE TABLE awb_campaign_annotators (
        campaign_uid text NOT NULL REFERENCES awb_campaigns(uid) ON DELETE CASCADE,
        annotator text NOT NULL,
        PRIMARY KEY (campaign_uid, annotator)
      );
      CREATE TABLE awb_instances (
        key text PRIMARY KEY,
        hash text NOT NULL,
        record text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE awb_campaign_instances (
        campaign_uid text NOT NULL REFERENCES awb_campaigns(uid) ON DELETE CASCADE,
        instance_id integer NOT NULL,
        instance_key text NOT NULL REFERENCES awb_instances(key),
        dataset text NOT NULL,
        source_id text NOT NULL,
        ambiguity_type text NOT NULL,
        position integer,
        PRIMARY KEY (campaign_uid, instance_id),
        UNIQUE (campaign_uid, instance_key)
      );
    `,
  },
];
