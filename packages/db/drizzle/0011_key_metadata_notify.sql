-- Custom SQL migration file, put your code below! --
-- Every process keeps key metadata in memory and LISTENs on api_key_metadata: any change to a key row
-- (revocation, pinned version, deletion) or to an organization's row (its rate limit) is announced when it
-- commits, whoever makes it (the operator commands, the API, or SQL by hand).
CREATE FUNCTION notify_key_metadata_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'api_keys' THEN
    PERFORM pg_notify('api_key_metadata', 'key:' || OLD.id);
  ELSE
    PERFORM pg_notify('api_key_metadata', 'org:' || OLD.id);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER api_keys_notify_change
  AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_key_metadata_change();
--> statement-breakpoint
CREATE TRIGGER organizations_notify_change
  AFTER UPDATE OR DELETE ON organizations
  FOR EACH ROW EXECUTE FUNCTION notify_key_metadata_change();
