import { ErrorCode, GregorError } from '@gregor/common';

export class TopicExistsError extends GregorError {
  constructor(topic: string) {
    super(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${topic}' already exists.`);
  }
}

/** A controller write was fenced: /controller_epoch moved on, so this broker is no longer controller. */
export class ControllerMovedError extends GregorError {
  constructor(message: string) {
    super(ErrorCode.NOT_CONTROLLER, message);
  }
}

/** Another live session holds /brokers/ids/<id>. */
export class BrokerIdInUseError extends GregorError {
  constructor(brokerId: number) {
    super(ErrorCode.UNKNOWN_SERVER_ERROR, `broker id ${brokerId} is already registered by another live session`);
  }
}
