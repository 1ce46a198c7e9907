/** The robot signatures of DingTalk and Feishu/Lark: HMAC-SHA256 over `timestamp\nsecret`, base64. */
import { createHmac } from 'node:crypto';

/** DingTalk: key = secret, message = `${timestampMs}\n${secret}`. */
export function dingtalkSign(timestampMs: number, secret: string): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

/** Feishu/Lark: key = `${timestampSeconds}\n${secret}`, empty message. */
export function feishuSign(timestampSeconds: number, secret: string): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}
