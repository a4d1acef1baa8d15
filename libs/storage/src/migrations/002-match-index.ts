import type { Migration } from '..';

/**
 * The search index of the matching engine. Visual words per image are stored so that every worker can rebuild its
 * in-memory inverted index from Postgres; `index_log` records each image that enters or leaves a collection, written by
 * a trigger so that no code path can forget it, and lets each worker apply only what changed since its last look.
 */
export const matchIndex: Migration = {
  id: 2,
  name: 'match-index',
  up: `
    CREATE TABLE image_words (
      image_pk       bigint PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
      -- Which vocabulary produced the words: a new vocabulary means re-quantising, never mixing.
      vocabulary     text NOT NULL,
      words          bytea NOT NULL
    );

    CREATE TABLE index_log (
      seq         bigserial PRIMARY KEY,
      account_id  bigint NOT NULL,
      service     text NOT NULL,
      image_pk    bigint NOT NULL,
      op          text NOT NULL CHECK (op IN ('add', 'remove'))
    );
    CREATE INDEX index_log_collection ON index_log (account_id, service, seq);

    CREATE FUNCTION log_image_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        INSERT INTO index_log (account_id, service, image_pk, op) VALUES (OLD.account_id, OLD.service, OLD.id, 'remove');
        RETURN OLD;
      END IF;
      INSERT INTO index_log (account_id, service, image_pk, op) VALUES (NEW.account_id, NEW.service, NEW.id, 'add');
      RETURN NEW;
    END $$;

    CREATE TRIGGER images_index_log AFTER INSERT OR DELETE ON images
      FOR EACH ROW EXECUTE FUNCTION log_image_change();
  `,
};
