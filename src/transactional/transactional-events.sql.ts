// Reads of transactional_messages for outbound events (TransactionalEvents). pg text with $n
// parameters, run inside whichever transaction records the event.

/** $1 account, $2 message. */
export const MESSAGE_SUBJECT = `
  SELECT header_message_id, from_address, to_address
    FROM transactional_messages WHERE account_id = $1 AND id = $2::uuid`;
