import { IsInt, IsPositive, IsString, MinLength } from 'class-validator';

export class CreateOrderDto {
  @IsString()
  @MinLength(1)
  customer: string;

  @IsString()
  @MinLength(1)
  item: string;

  @IsInt()
  @IsPositive()
  quantity: number;
}
