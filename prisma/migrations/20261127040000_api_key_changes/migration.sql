-- API processes cache the keys they verified (src/auth/api-key-cache.ts) and LISTEN on
-- api_key_changes to drop a key when it changes. A trigger rather than a NOTIFY beside each
-- write, so that every writer is heard: the API, the operator CLI, and SQL typed by hand to
-- revoke a leaked key. last_used_at is left out: it moves all the time and changes nothing.
CREATE FUNCTION "api_key_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changes', OLD.id::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER "api_key_changed"
  AFTER UPDATE OF status, scopes, secret_hash, account_id OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "api_key_changed"();
