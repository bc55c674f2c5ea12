import { InProcessReplyRouter } from '../../src/server/legacy/reply-router.js';
import { replyRouterContract } from '../support/reply-router.contract.js';

replyRouterContract('InProcessReplyRouter', () => new InProcessReplyRouter());
